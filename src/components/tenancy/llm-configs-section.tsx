"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  createLlmConfigInput,
  LLM_PROVIDERS,
  updateLlmConfigInput,
  type CreateLlmConfigInput,
  type LlmConfig,
  type UpdateLlmConfigInput,
} from "@/lib/schemas/llm-configs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { jsonText } from "@/components/tenancy/values";
import { Badge } from "@/components/ui/badge";
import { CheckboxField, optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { jsonObjectOf, orNull, valuesFrom } from "@/components/ui/form-values";
import { ResourceSection, type EditorControls } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";

// An organization's LLM configs (bring your own key). The provider key is write-only: the console
// sends it and only ever shows its last 4 characters. The provider is fixed after creation.

export function LlmConfigsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.llmConfigs.list.queryOptions({ org_id: orgId }));
  const remove = useMutation(trpc.llmConfigs.delete.mutationOptions());
  const queryClient = useQueryClient();
  return (
    <ResourceSection<LlmConfig>
      title="LLM configs"
      description="The organization’s own provider keys, stored encrypted and never shown again: only their last 4 characters. Disabled configs are not offered to new orchestrators."
      query={list}
      columns={["Name", "Provider", "API key", "Base URL", "Status", "Updated"]}
      itemName={(config) => config.name}
      cells={(config) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            {config.name}
          </th>
          <td className={td}>{config.provider}</td>
          <td className={`${td} font-mono whitespace-nowrap`}>
            <span aria-hidden="true">••••</span>
            <span className="sr-only">ends in </span>
            {config.api_key_readable ? config.api_key_last4 : "unreadable: set a new key"}
          </td>
          <td className={`${td} wrap-anywhere`}>
            {config.base_url ?? <span className={mutedText}>Provider default</span>}
          </td>
          <td className={td}>{config.is_enabled ? <Badge tone="good">enabled</Badge> : <Badge>disabled</Badge>}</td>
          <WhenCell iso={config.updated_at} />
        </>
      )}
      empty={{
        title: "No LLM configs",
        body: "Add the organization’s own provider key so its orchestrators can call that provider.",
      }}
      create={{ label: "Add LLM config" }}
      editor={{
        title: (config) => (config ? `Edit LLM config “${config.name}”` : "Add LLM config"),
        description: (config) =>
          config
            ? "The provider is fixed. Leave the API key empty to keep the current one."
            : "The API key is stored encrypted and never shown again.",
        form: (config, controls) => <LlmConfigForm orgId={orgId} config={config} controls={controls} />,
      }}
      remove={{
        title: (c) => `Delete LLM config “${c.name}”?`,
        body: (c) => (
          <>
            The {c.provider} key{" "}
            {c.api_key_readable ? (
              <>
                ending in <code className="font-mono">{c.api_key_last4}</code>
              </>
            ) : (
              "(unreadable)"
            )}{" "}
            stops being available to the organization’s orchestrators.
          </>
        ),
        confirmLabel: "Delete LLM config",
        run: (c) => remove.mutateAsync({ org_id: orgId, config_id: c.id }),
        notice: (c) => `LLM config “${c.name}” deleted.`,
      }}
      refresh={() => queryClient.invalidateQueries(trpc.llmConfigs.pathFilter())}
    />
  );
}

interface LlmConfigValues {
  name: string;
  provider: string;
  api_key: string;
  base_url: string;
  additional_config: string;
  is_enabled: boolean;
}

function LlmConfigForm({
  orgId,
  config,
  controls,
}: {
  orgId: string;
  config: LlmConfig | null;
  controls: EditorControls;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<LlmConfigValues, CreateLlmConfigInput | UpdateLlmConfigInput>({
    schema: config === null ? createLlmConfigInput : updateLlmConfigInput,
    // The key is write-only: an edit starts without it.
    defaultValues: {
      ...valuesFrom(config, {
        name: "",
        provider: "openai",
        api_key: "",
        base_url: "",
        additional_config: "",
        is_enabled: true,
      }),
      additional_config: config ? jsonText(config.additional_config) : "",
    },
    toInput: ({ provider, api_key, base_url, additional_config, ...values }, problem) => ({
      ...values,
      ...(config === null ? { provider } : {}),
      // Left empty on an edit: the current key stays.
      ...(config === null || api_key !== "" ? { api_key } : {}),
      base_url: orNull(base_url),
      additional_config: jsonObjectOf(additional_config, "Additional config", (message) =>
        problem("additional_config", message),
      ),
    }),
    submit: async (input) => {
      const saved =
        config === null
          ? await client.llmConfigs.create.mutate({ org_id: orgId, ...(input as CreateLlmConfigInput) })
          : await client.llmConfigs.update.mutate({ org_id: orgId, config_id: config.id, ...input });
      controls.done(`LLM config “${saved.name}” ${config === null ? "added" : "saved"}.`);
    },
  });

  return (
    <Form form={form} className="space-y-5">
      <TextField name="name" label="Name" autoFocus autoComplete="off" />
      {config === null ? (
        <SelectField name="provider" label="Provider" options={optionsOf(LLM_PROVIDERS)} hint="Fixed after creation." />
      ) : (
        <TextField
          name="provider"
          label="Provider"
          readOnly
          hint="Fixed at creation: add another config for another provider."
        />
      )}
      <TextField
        name="api_key"
        label={config === null ? "API key" : "New API key"}
        type="password"
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
        name="base_url"
        label="Base URL"
        type="url"
        placeholder="https://api.example.com/v1"
        autoComplete="off"
        hint="Optional: the provider’s default when empty. https only, and never a private or loopback address."
      />
      <TextAreaField
        name="additional_config"
        label="Additional config"
        mono
        placeholder='{"organization": "org-…"}'
        hint="Optional JSON object of provider options."
      />
      <CheckboxField name="is_enabled" label="Enabled" hint="Only enabled configs are offered to new orchestrators." />
      <DialogButtons onCancel={controls.cancel} label={config === null ? "Add LLM config" : "Save LLM config"} />
    </Form>
  );
}
