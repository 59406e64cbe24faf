"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "@/lib/schemas/webhooks";
import { Badge } from "@/components/ui/badge";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { Fact, ShownOnceDialog } from "@/components/ui/secret-field";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { CodeList, WhenCell } from "@/components/ui/values";
import { useWebhookApi } from "./api";
import { DeliveriesTable } from "./deliveries-table";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// Webhook endpoints of an organization (orgId) or of the platform: the list, create and edit with
// an event-types picker, the signing secret in the show-once dialog, "Send test event", secret
// rotation, and an endpoint's deliveries with Retry. The form (with its validation) loads when
// first opened, not with the page.

const EndpointForm = onDemand(() => import("./endpoint-form").then((m) => m.EndpointForm), {
  loading: () => <FormLoading />,
});

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
