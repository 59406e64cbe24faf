"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { putPlatformSettingInput, VALUE_TYPES, type PlatformSettingView } from "@/lib/schemas/settings";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { parseSettingKey, parseValue, ValueInput, type ValueKind, valueText } from "@/components/tenancy/values";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CheckboxField, DialogButtons, optionsOf, SelectField, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import type { FormErrors } from "@/components/ui/form-errors";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { JsonValue, When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// Platform settings (tier 2): every key with its value_type, category and whether organizations
// may override it, including the tier quotas (`tier.<name>`).

const PLATFORM_ONLY = ["tier", "policy"];

type Editing = { mode: "add" } | { mode: "edit"; setting: PlatformSettingView };

export function PlatformSettingsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.platformSettings.list.queryOptions({ limit: 100 }));
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<PlatformSettingView | null>(null);
  const [notice, setNotice] = useState("");
  const remove = useMutation(trpc.platformSettings.delete.mutationOptions());
  // Effective settings and config hashes of every organization follow the platform tier.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.platformSettings.pathFilter()),
      queryClient.invalidateQueries(trpc.orgSettings.pathFilter()),
      queryClient.invalidateQueries(trpc.orchestrators.pathFilter()),
    ]);

  const addButton = (
    <button type="button" onClick={() => setEditing({ mode: "add" })} className={primaryButton}>
      Add platform setting
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading platform settings…" />;
    if (list.isError) return <ErrorState title="The platform settings could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (list.data.data.length === 0) return <EmptyState title="No platform settings" body="Add the platform’s defaults; organizations inherit them." action={addButton} />;
    return (
      <DataTable caption="Platform settings" columns={["Key", "Value", "Type", "Category", "Organizations may override", "Updated", { label: "Actions", hidden: true }]} busy={list.isFetching}>
        {list.data.data.map((s) => (
          <tr key={s.key}>
            <th scope="row" className={`${td} text-left font-medium`}>
              <span className="font-mono text-xs break-all">{s.key}</span>
              {s.description && <span className="mt-1 block max-w-xs text-xs font-normal text-slate-500 dark:text-slate-400">{s.description}</span>}
            </th>
            <td className={td}>
              <JsonValue value={s.value} />
            </td>
            <td className={td}>{s.value_type}</td>
            <td className={td}>
              {s.category ? (
                <span className="flex flex-col items-start gap-1">
                  {s.category}
                  {PLATFORM_ONLY.includes(s.category) && <Badge tone="warn">platform only</Badge>}
                </span>
              ) : (
                <span className="text-slate-500 dark:text-slate-400">None</span>
              )}
            </td>
            <td className={td}>{PLATFORM_ONLY.includes(s.category ?? "") ? "Not inherited" : s.overridable ? "Yes" : "No"}</td>
            <td className={td}>
              <When iso={s.updated_at} />
            </td>
            <RowActions
              actions={[
                { label: "Edit", ariaLabel: `Edit platform setting ${s.key}`, onClick: () => setEditing({ mode: "edit", setting: s }) },
                { label: "Delete", ariaLabel: `Delete platform setting ${s.key}`, onClick: () => setDeleting(s), danger: true },
              ]}
            />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="platform-settings-heading">
      <PageHeader id="platform-settings-heading" title="Platform settings" actions={addButton}>
        Tier 2: the platform’s defaults, which organizations and their orchestrators inherit and may override where a setting allows it.
        Categories <code className="font-mono">tier</code> (the quotas of each subscription tier) and <code className="font-mono">policy</code>{" "}
        govern the platform itself and are not inherited.
      </PageHeader>
      <div className="mt-4">
        <Notice text={notice} />
      </div>
      <div className="mt-2">{content()}</div>

      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === "edit" ? `Edit platform setting ${editing.setting.key}` : "Add platform setting"}
        description="The value must have the value type. Every orchestrator’s config hash follows the change."
      >
        {editing && (
          <PlatformSettingForm
            setting={editing.mode === "edit" ? editing.setting : null}
            onCancel={() => setEditing(null)}
            onSaved={(saved) => {
              setEditing(null);
              setNotice(`Platform setting ${saved.key} saved.`);
              void refresh();
            }}
          />
        )}
      </Dialog>

      <ConfirmDialog
        subject={deleting}
        title={(s) => `Delete platform setting ${s.key}?`}
        body={(s) => (
          <>
            Organizations that do not set <code className="font-mono">{s.key}</code> themselves lose it.
            {s.category === "tier" && " Without it, this subscription tier has no quotas."}
          </>
        )}
        confirmLabel="Delete platform setting"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(s) => remove.mutateAsync({ key: s.key })}
        onDone={(s) => {
          setDeleting(null);
          setNotice(`Platform setting ${s.key} deleted.`);
          void refresh();
        }}
      />
    </section>
  );
}

const LABELS = { key: "Key", value_type: "Value type", value: "Value", overridable: "Organizations may override", category: "Category", description: "Description" } as const;

function PlatformSettingForm({ setting, onCancel, onSaved }: { setting: PlatformSettingView | null; onCancel: () => void; onSaved: (saved: PlatformSettingView) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const initialKind = (setting && (VALUE_TYPES as readonly string[]).includes(setting.value_type) ? setting.value_type : "string") as ValueKind;
  const [key, setKey] = useState(setting?.key ?? "");
  const [kind, setKind] = useState<ValueKind>(initialKind);
  const [text, setText] = useState(setting ? valueText(initialKind, setting.value) : "");
  const [overridable, setOverridable] = useState(setting?.overridable ?? false);
  const [category, setCategory] = useState(setting?.category ?? "");
  const [description, setDescription] = useState(setting?.description ?? "");
  const save = useMutation(trpc.platformSettings.put.mutationOptions({ onSuccess: onSaved, onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: FormErrors<keyof typeof LABELS> = {};
    const parsedKey = parseSettingKey(key);
    if (!parsedKey.ok) found.key = parsedKey.message;
    const value = parseValue(kind, text);
    if (!value.ok) found.value = value.message;
    const input = form.check(putPlatformSettingInput, {
      value: value.ok ? value.value : null,
      value_type: kind,
      overridable,
      category: category.trim() === "" ? null : category.trim(),
      description: description.trim() === "" ? null : description,
    }, found);
    if (parsedKey.ok && input) save.mutate({ key: parsedKey.value, ...input });
  }

  const { errors } = form;
  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField
        label="Key"
        value={key}
        onChange={(event) => setKey(event.target.value)}
        readOnly={setting !== null}
        autoFocus={setting === null}
        autoComplete="off"
        placeholder="chat.max_turns"
        error={errors.key}
        hint={setting ? "A key cannot be renamed: add a new one and delete this one." : "Dotted lower_snake_case, like telemetry.enabled."}
      />
      <SelectField
        label="Value type"
        value={kind}
        onChange={(event) => {
          setKind(event.target.value as ValueKind);
          if (event.target.value === "boolean") setText("true");
        }}
        options={optionsOf(VALUE_TYPES)}
        error={errors.value_type}
        hint="Values of this key, here and in instance configs, must have this type."
      />
      <ValueInput kind={kind} text={text} onText={setText} error={errors.value} />
      <TextField
        label="Category"
        value={category}
        onChange={(event) => setCategory(event.target.value)}
        error={errors.category}
        autoComplete="off"
        list="platform-setting-categories"
        hint="Optional grouping. tier and policy settings govern the platform and are not inherited."
      />
      <datalist id="platform-setting-categories">
        {["tier", "policy", "api_keys"].map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      <TextAreaField label="Description" value={description} onChange={(event) => setDescription(event.target.value)} error={errors.description} />
      <CheckboxField
        label="Organizations may override"
        checked={overridable}
        onChange={(event) => setOverridable(event.target.checked)}
        error={errors.overridable}
        hint="Unchecked: organizations and their instances cannot set their own value for this key."
      />
      <FormAlert message={errors.form} />
      <DialogButtons onCancel={onCancel} pending={save.isPending} label="Save platform setting" />
    </form>
  );
}
