"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ALL_EVENTS, EVENT_TYPE_CATALOG } from "@/lib/event-types";
import {
  createWebhookEndpointInput,
  updateWebhookEndpointInput,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from "@/lib/schemas/webhooks";
import { Badge } from "@/components/ui/badge";
import { CheckboxField, Choice, ChoiceGroup, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { orNull, valuesFrom } from "@/components/ui/form-values";
import { ResourceSection, useNotice, type EditorControls } from "@/components/ui/resource-section";
import { Fact, ShownOnceDialog } from "@/components/ui/secret-field";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { CodeList, WhenCell } from "@/components/ui/values";
import { useWebhookApi } from "./api";
import { DeliveriesTable } from "./deliveries-table";

// Webhook endpoints of an organization (orgId) or of the platform: the list, create and edit with
// an event-types picker, the signing secret in the show-once dialog, "Send test event", secret
// rotation, and an endpoint's deliveries with Retry.

const SUBSCRIBABLE = [ALL_EVENTS, ...EVENT_TYPE_CATALOG.map((e) => e.type).filter((t) => t !== "webhook.test")];
const DESCRIPTIONS = new Map<string, string>([
  [ALL_EVENTS, "Every change and system event (not the audit stream)."],
  ...EVENT_TYPE_CATALOG.map((e) => [e.type, e.description] as [string, string]),
]);

export function WebhooksSection({ orgId }: { orgId?: string }) {
  const api = useWebhookApi(orgId);
  const list = useQuery(api.listOptions());
  const queryClient = useQueryClient();
  const notice = useNotice();
  const [secret, setSecret] = useState<{ endpoint: WebhookEndpointWithSecret; rotated: boolean } | null>(null);
  const [watching, setWatching] = useState<WebhookEndpoint | null>(null);
  const refresh = () => queryClient.invalidateQueries(api.pathFilter());

  async function sendTest(endpoint: WebhookEndpoint) {
    try {
      await api.test(endpoint.id);
      notice.say(`A test event is on its way to ${endpoint.url}.`);
      setWatching(endpoint);
      await refresh();
    } catch (error) {
      notice.fail((error as Error).message);
    }
  }

  async function rotate(endpoint: WebhookEndpoint) {
    try {
      setSecret({ endpoint: await api.rotate(endpoint.id), rotated: true });
    } catch (error) {
      notice.fail((error as Error).message);
    }
  }

  return (
    <>
      <ResourceSection<WebhookEndpoint>
        title="Webhooks"
        level={orgId === undefined ? 1 : 2}
        description={
          orgId === undefined
            ? "Endpoints that receive every organization’s events, signed with Standard Webhooks. Subscribe a SIEM to audit.event for the whole audit trail."
            : "Endpoints that receive this organization’s events, signed with Standard Webhooks."
        }
        query={list}
        notice={notice}
        columns={["URL", "Events", "Status", "Updated"]}
        itemName={(endpoint) => endpoint.url}
        actions={(endpoint, open) => [
          {
            label: "Send test event",
            ariaLabel: `Send a test event to ${endpoint.url}`,
            onClick: () => void sendTest(endpoint),
          },
          { label: "Deliveries", ariaLabel: `Deliveries to ${endpoint.url}`, onClick: () => setWatching(endpoint) },
          { label: "Edit", ariaLabel: `Edit ${endpoint.url}`, onClick: open.edit },
          {
            label: "Rotate secret",
            ariaLabel: `Rotate the secret of ${endpoint.url}`,
            onClick: () => void rotate(endpoint),
          },
          { label: "Delete", ariaLabel: `Delete ${endpoint.url}`, onClick: open.remove, danger: true },
        ]}
        cells={(endpoint) => (
          <>
            <th scope="row" className={`${td} max-w-80 text-left font-medium break-all`}>
              {endpoint.url}
              {endpoint.description && <span className={`block font-normal ${mutedText}`}>{endpoint.description}</span>}
            </th>
            <td className={td}>
              <CodeList items={endpoint.event_types} />
            </td>
            <td className={td}>
              {endpoint.enabled ? (
                <Badge tone="good">enabled</Badge>
              ) : (
                <Badge tone="bad" title={endpoint.disabled_reason ?? undefined}>
                  disabled
                </Badge>
              )}
            </td>
            <WhenCell iso={endpoint.updated_at} />
          </>
        )}
        empty={{ title: "No webhook endpoints", body: "Add an endpoint to receive events as they happen." }}
        create={{ label: "Add endpoint" }}
        editor={{
          title: (endpoint) => (endpoint ? `Edit endpoint ${endpoint.url}` : "Add webhook endpoint"),
          description: (endpoint) => (endpoint ? undefined : "Its signing secret is shown once, when it is created."),
          form: (endpoint, controls) => (
            <EndpointForm
              endpoint={endpoint}
              controls={controls}
              save={async (input) => {
                if (endpoint) return api.update(endpoint.id, input as UpdateWebhookEndpointInput);
                const created = await api.create(input as CreateWebhookEndpointInput);
                setSecret({ endpoint: created, rotated: false });
                return created;
              }}
            />
          ),
        }}
        remove={{
          title: (endpoint) => `Delete the endpoint ${endpoint.url}?`,
          body: () => <>It receives nothing more; deliveries still pending are dropped.</>,
          confirmLabel: "Delete endpoint",
          run: (endpoint) => api.remove(endpoint.id),
          notice: (endpoint) => `Endpoint ${endpoint.url} deleted.`,
        }}
        refresh={refresh}
      />
      <ShownOnceDialog
        secret={secret?.endpoint.secret ?? null}
        title={secret?.rotated ? "New signing secret" : "Endpoint added"}
        label="Signing secret"
        noun="secret"
        what="signing secret"
        onClose={() => setSecret(null)}
        facts={
          secret && (
            <>
              <Fact term="Endpoint">{secret.endpoint.url}</Fact>
              {secret.rotated && <Fact term="Previous secret">keeps signing beside it for 24 hours</Fact>}
            </>
          )
        }
      />
      {watching && <DeliveriesTable key={watching.id} api={api} endpoint={watching} notice={notice} />}
    </>
  );
}

interface EndpointValues {
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
}

function EndpointForm({
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
      event_types: Array.isArray(event_types) ? event_types : event_types ? [event_types] : [],
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
      <ChoiceGroup
        name="event_types"
        legend="Event types"
        hint="What this endpoint receives."
        className="mt-2 grid max-h-72 grid-cols-1 gap-y-1 overflow-y-auto sm:grid-cols-2"
      >
        {SUBSCRIBABLE.map((type) => (
          <Choice
            key={type}
            type="checkbox"
            name="event_types"
            value={type}
            label={
              <span title={DESCRIPTIONS.get(type)} className="font-mono text-xs">
                {type}
              </span>
            }
          />
        ))}
      </ChoiceGroup>
      <CheckboxField name="enabled" label="Enabled" hint="A disabled endpoint receives nothing." />
      <DialogButtons onCancel={controls.cancel} label={endpoint === null ? "Add endpoint" : "Save endpoint"} />
    </Form>
  );
}
