"use client";

import { ALL_EVENTS, EVENT_TYPE_CATALOG } from "@/lib/event-types";
import {
  createWebhookEndpointInput,
  updateWebhookEndpointInput,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
  type WebhookEndpoint,
} from "@/lib/schemas/webhooks";
import { CheckboxField, CheckboxGroup, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { checkedValues, orNull, valuesFrom } from "@/components/ui/form-values";
import type { EditorControls } from "@/components/ui/resource-section";

// A webhook endpoint's add/edit form (./webhooks-section.tsx), with its event-types picker.

const SUBSCRIBABLE = [ALL_EVENTS, ...EVENT_TYPE_CATALOG.map((e) => e.type).filter((t) => t !== "webhook.test")];
const DESCRIPTIONS = new Map<string, string>([
  [ALL_EVENTS, "Every change and system event (not the audit stream)."],
  ...EVENT_TYPE_CATALOG.map((e) => [e.type, e.description] as [string, string]),
]);

interface EndpointValues {
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
}

export function EndpointForm({
  endpoint,
  controls,
  save,
}: {
  endpoint: WebhookEndpoint | null;
  controls: EditorControls;
  save: (input: CreateWebhookEndpointInput | UpdateWebhookEndpointInput) => Promise<WebhookEndpoint>;
}) {
  const form = useSchemaForm<EndpointValues, CreateWebhookEndpointInput | UpdateWebhookEndpointInput>({
    schema: endpoint === null ? createWebhookEndpointInput : updateWebhookEndpointInput,
    defaultValues: {
      ...valuesFrom(endpoint, { url: "", description: "", event_types: [] as string[], enabled: true }),
      description: endpoint?.description ?? "",
    },
    toInput: ({ description, event_types, ...values }) => ({
      ...values,
      description: orNull(description),
      // A single checked box comes as a string, none as false.
      event_types: checkedValues(event_types),
    }),
    submit: async (input) => {
      const saved = await save(input);
      controls.done(`Endpoint ${saved.url} ${endpoint === null ? "added" : "saved"}.`);
    },
  });
  return (
    <Form form={form} className="space-y-5">
      <TextField
        name="url"
        label="URL"
        type="url"
        autoFocus
        autoComplete="off"
        placeholder="https://hooks.example.com/svc"
        hint="https, to a public address. Redirects are not followed."
      />
      <TextField name="description" label="Description" autoComplete="off" />
      <CheckboxGroup
        name="event_types"
        legend="Event types"
        hint="What this endpoint receives."
        className="mt-2 grid max-h-72 grid-cols-1 gap-y-1 overflow-y-auto sm:grid-cols-2"
        options={SUBSCRIBABLE.map((type) => ({
          value: type,
          label: (
            <span title={DESCRIPTIONS.get(type)} className="font-mono text-xs">
              {type}
            </span>
          ),
        }))}
      />
      <CheckboxField name="enabled" label="Enabled" hint="A disabled endpoint receives nothing." />
      <DialogButtons onCancel={controls.cancel} label={endpoint === null ? "Add endpoint" : "Save endpoint"} />
    </Form>
  );
}
