"use client";

import {
  createLlmConfigInput,
  LLM_PROVIDERS,
  updateLlmConfigInput,
  type CreateLlmConfigInput,
  type LlmConfig,
  type UpdateLlmConfigInput,
} from "@/lib/schemas/llm-configs";
import { useTRPCClient } from "@/trpc/react";
import { jsonText } from "@/components/tenancy/values";
import { CheckboxField, optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { jsonObjectOf, orNull, valuesFrom } from "@/components/ui/form-values";
import type { EditorControls } from "@/components/ui/resource-section";

// An LLM config's create/edit form (./llm-configs-section.tsx): the provider key is write-only, an
// edit leaves it out unless a new one is typed.

interface LlmConfigValues {
  name: string;
  provider: string;
  api_key: string;
  base_url: string;
  additional_config: string;
  is_enabled: boolean;
}

export function LlmConfigForm({
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
