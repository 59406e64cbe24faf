"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { createLlmConfigInput, LLM_PROVIDERS, updateLlmConfigInput, type LlmConfig } from "@/lib/schemas/llm-configs";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { jsonText, parseJsonObject } from "@/components/tenancy/values";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CheckboxField, DialogButtons, optionsOf, SelectField, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import type { FormErrors } from "@/components/ui/form-errors";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// An organization's LLM configs (bring your own key). The provider key is write-only: the console
// sends it and only ever shows its last 4 characters. The provider is fixed after creation.

type Editing = { mode: "add" } | { mode: "edit"; config: LlmConfig };

export function LlmConfigsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.llmConfigs.list.queryOptions({ org_id: orgId }));
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<LlmConfig | null>(null);
  const [notice, setNotice] = useState("");
  const remove = useMutation(trpc.llmConfigs.delete.mutationOptions());
  const refresh = () => queryClient.invalidateQueries(trpc.llmConfigs.pathFilter());

  const addButton = (
    <button type="button" onClick={() => setEditing({ mode: "add" })} className={primaryButton}>
      Add LLM config
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading LLM configs…" />;
    if (list.isError) return <ErrorState title="The LLM configs could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (list.data.data.length === 0) {
      return <EmptyState title="No LLM configs" body="Add the organization’s own provider key so its orchestrators can call that provider." action={addButton} />;
    }
    return (
      <DataTable caption="LLM configs" columns={["Name", "Provider", "API key", "Base URL", "Status", "Updated", { label: "Actions", hidden: true }]} busy={list.isFetching}>
        {list.data.data.map((config) => (
          <tr key={config.id}>
            <th scope="row" className={`${td} text-left font-medium`}>
              {config.name}
            </th>
            <td className={td}>{config.provider}</td>
            <td className={`${td} font-mono whitespace-nowrap`}>
              <span aria-hidden="true">••••</span>
              <span className="sr-only">ends in </span>
              {config.api_key_readable ? config.api_key_last4 : "unreadable: set a new key"}
            </td>
            <td className={`${td} break-all`}>{config.base_url ?? <span className="text-slate-500 dark:text-slate-400">Provider default</span>}</td>
            <td className={td}>{config.is_enabled ? <Badge tone="good">enabled</Badge> : <Badge>disabled</Badge>}</td>
            <td className={td}>
              <When iso={config.updated_at} />
            </td>
            <RowActions
              actions={[
                { label: "Edit", ariaLabel: `Edit ${config.name}`, onClick: () => setEditing({ mode: "edit", config }) },
                { label: "Delete", ariaLabel: `Delete ${config.name}`, onClick: () => setDeleting(config), danger: true },
              ]}
            />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="llm-configs-heading">
      <PageHeader level={2} id="llm-configs-heading" title="LLM configs" actions={addButton}>
        The organization’s own provider keys, stored encrypted and never shown again: only their last 4 characters. Disabled configs are not
        offered to new orchestrators.
      </PageHeader>
      <div className="mt-2">
        <Notice text={notice} />
      </div>
      <div className="mt-2">{content()}</div>

      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === "edit" ? `Edit LLM config “${editing.config.name}”` : "Add LLM config"}
        description={editing?.mode === "edit" ? "The provider is fixed. Leave the API key empty to keep the current one." : "The API key is stored encrypted and never shown again."}
      >
        {editing && (
          <LlmConfigForm
            orgId={orgId}
            config={editing.mode === "edit" ? editing.config : null}
            onCancel={() => setEditing(null)}
            onSaved={(saved, created) => {
              setEditing(null);
              setNotice(`LLM config “${saved.name}” ${created ? "added" : "saved"}.`);
              void refresh();
            }}
          />
        )}
      </Dialog>

      <ConfirmDialog
        subject={deleting}
        title={(c) => `Delete LLM config “${c.name}”?`}
        body={(c) => (
          <>
            The {c.provider} key {c.api_key_readable ? <>ending in <code className="font-mono">{c.api_key_last4}</code></> : "(unreadable)"} stops being available to the organization’s
            orchestrators.
          </>
        )}
        confirmLabel="Delete LLM config"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(c) => remove.mutateAsync({ org_id: orgId, config_id: c.id })}
        onDone={(c) => {
          setDeleting(null);
          setNotice(`LLM config “${c.name}” deleted.`);
          void refresh();
        }}
      />
    </section>
  );
}

const LABELS = {
  name: "Name",
  provider: "Provider",
  api_key: "API key",
  base_url: "Base URL",
  additional_config: "Additional config",
  is_enabled: "Enabled",
} as const;

function LlmConfigForm({ orgId, config, onCancel, onSaved }: { orgId: string; config: LlmConfig | null; onCancel: () => void; onSaved: (saved: LlmConfig, created: boolean) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [name, setName] = useState(config?.name ?? "");
  const [provider, setProvider] = useState(config?.provider ?? "openai");
  const [apiKey, setApiKey] = useState("");
  const [baseUrl, setBaseUrl] = useState(config?.base_url ?? "");
  const [additional, setAdditional] = useState(config ? jsonText(config.additional_config) : "");
  const [enabled, setEnabled] = useState(config?.is_enabled ?? true);

  const create = useMutation(trpc.llmConfigs.create.mutationOptions({ onSuccess: (saved) => onSaved(saved, true), onError: form.fromServer }));
  const update = useMutation(trpc.llmConfigs.update.mutationOptions({ onSuccess: (saved) => onSaved(saved, false), onError: form.fromServer }));
  const pending = create.isPending || update.isPending;

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: FormErrors<keyof typeof LABELS> = {};
    const extra = parseJsonObject(additional, "Additional config");
    if (!extra.ok) found.additional_config = extra.message;
    const common = {
      name,
      base_url: baseUrl.trim() === "" ? null : baseUrl.trim(),
      additional_config: extra.ok ? extra.value : {},
      is_enabled: enabled,
    };
    if (config === null) {
      if (apiKey === "") found.api_key = "API key is required.";
      const input = form.check(createLlmConfigInput, { ...common, provider, api_key: apiKey }, found);
      if (input) create.mutate({ org_id: orgId, ...input });
    } else {
      const input = form.check(updateLlmConfigInput, { ...common, ...(apiKey === "" ? {} : { api_key: apiKey }) }, found);
      if (input) update.mutate({ org_id: orgId, config_id: config.id, ...input });
    }
  }

  const { errors } = form;
  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} error={errors.name} autoFocus autoComplete="off" />
      {config === null ? (
        <SelectField label="Provider" value={provider} onChange={(event) => setProvider(event.target.value)} options={optionsOf(LLM_PROVIDERS)} error={errors.provider} hint="Fixed after creation." />
      ) : (
        <TextField label="Provider" value={config.provider} readOnly error={errors.provider} hint="Fixed at creation: add another config for another provider." />
      )}
      <TextField
        label={config === null ? "API key" : "New API key"}
        type="password"
        value={apiKey}
        onChange={(event) => setApiKey(event.target.value)}
        error={errors.api_key}
        autoComplete="off"
        hint={
          config === null
            ? "Stored encrypted. Only its last 4 characters are ever shown again."
            : config.api_key_readable
              ? `Leave empty to keep the current key (ending in ${config.api_key_last4}).`
              : "The stored key cannot be decrypted: enter a new one."
        }
      />
      <TextField
        label="Base URL"
        type="url"
        value={baseUrl}
        onChange={(event) => setBaseUrl(event.target.value)}
        error={errors.base_url}
        placeholder="https://api.example.com/v1"
        autoComplete="off"
        hint="Optional: the provider’s default when empty. https only, and never a private or loopback address."
      />
      <TextAreaField
        label="Additional config"
        mono
        value={additional}
        onChange={(event) => setAdditional(event.target.value)}
        error={errors.additional_config}
        placeholder='{"organization": "org-…"}'
        hint="Optional JSON object of provider options."
      />
      <CheckboxField label="Enabled" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} error={errors.is_enabled} hint="Only enabled configs are offered to new orchestrators." />
      <FormAlert message={errors.form} />
      <DialogButtons onCancel={onCancel} pending={pending} label={config === null ? "Add LLM config" : "Save LLM config"} />
    </form>
  );
}
