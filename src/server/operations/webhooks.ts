import "server-only";
import { EVENT_TYPE_CATALOG } from "@/lib/event-types";
import {
  acceptedSchema,
  createWebhookEndpointInput,
  deliveryIdParams,
  endpointIdParams,
  listWebhookDeliveriesQuery,
  listWebhookEndpointsQuery,
  orgDeliveryIdParams,
  orgEndpointIdParams,
  updateWebhookEndpointInput,
  webhookDeliveryListSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  webhookEventTypeListSchema,
} from "@/lib/schemas/webhooks";
import { z } from "zod";
import { id } from "@/lib/schemas/common";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  retryWebhookDelivery,
  rotateWebhookEndpointSecret,
  testWebhookEndpoint,
  updateWebhookEndpoint,
} from "@/server/services/webhooks/endpoints";
import { defineOperation, type ObjectSchema, type PermissionAccess } from "./operation";

// Webhook endpoints: an organization's under /organizations/{org_id}/webhook-endpoints (its events
// only), the platform's under /webhook-endpoints (every event). Both sets are made by one function,
// so they cannot drift apart.

const PLATFORM_TAG = "Webhooks";
const ORG_TAG = "Organization webhooks";
const SECRET_NOTE =
  "The signing secret (`secret`, `whsec_…`) is in this response only; it is stored encrypted. Deliveries carry Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).";

interface Scope<L extends ObjectSchema | undefined, P extends ObjectSchema, D extends ObjectSchema> {
  /** Operation id infix: "" for the platform, "Org" for an organization. */
  infix: "" | "Org";
  base: string;
  read: PermissionAccess;
  write: PermissionAccess;
  /** The owner of the endpoints from the path parameters. */
  owner: (params: { org_id?: string }) => string | null;
  listParams: L;
  params: P;
  deliveryParams: D;
  whose: string;
}

type EndpointPath = { org_id?: string; endpoint_id: string };
type DeliveryPath = EndpointPath & { delivery_id: string };

function endpointOperations<L extends ObjectSchema | undefined, P extends ObjectSchema, D extends ObjectSchema>(
  scope: Scope<L, P, D>,
) {
  const { infix, base, read, write, whose, listParams, params, deliveryParams } = scope;
  // An organization's endpoints on a reference page of their own: one page for both passes 1 MB.
  const tag = infix ? ORG_TAG : PLATFORM_TAG;
  const one = `${base}/{endpoint_id}`;
  const owner = (p: unknown) => scope.owner((p ?? {}) as { org_id?: string });
  const path = (p: unknown) => p as EndpointPath;
  return {
    list: defineOperation({
      id: `list${infix}WebhookEndpoints`,
      method: "GET",
      path: base,
      tag,
      summary: `List ${whose} webhook endpoints`,
      access: { ...read, ...(read.org ? { list: true } : {}) },
      params: listParams,
      query: listWebhookEndpointsQuery,
      response: webhookEndpointListSchema,
      handler: ({ params, query, ...ctx }) => listWebhookEndpoints(ctx, owner(params), query),
    }),
    create: defineOperation({
      id: `create${infix}WebhookEndpoint`,
      method: "POST",
      path: base,
      tag,
      summary: `Create a webhook endpoint (${whose})`,
      description: `${SECRET_NOTE} The URL must be https and public (section 13 address rules; checked again at every delivery). At most 20 per organization (403 \`quota_exceeded\`).`,
      access: write,
      params: listParams,
      body: createWebhookEndpointInput,
      response: webhookEndpointWithSecretSchema,
      created: (endpoint) => endpoint.id,
      secret: true,
      errors: ["not_found", "quota_exceeded"],
      handler: ({ params, body, ...ctx }) => createWebhookEndpoint(ctx, owner(params), body),
    }),
    get: defineOperation({
      id: `get${infix}WebhookEndpoint`,
      method: "GET",
      path: one,
      tag,
      summary: `Read a webhook endpoint (${whose})`,
      access: read,
      params,
      response: webhookEndpointSchema,
      errors: ["not_found"],
      handler: ({ params, ...ctx }) => getWebhookEndpoint(ctx, owner(params), path(params).endpoint_id),
    }),
    update: defineOperation({
      id: `update${infix}WebhookEndpoint`,
      method: "PATCH",
      path: one,
      tag,
      summary: `Update a webhook endpoint (${whose})`,
      description: "`enabled: true` on a disabled endpoint clears `disabled_reason`.",
      access: write,
      params,
      body: updateWebhookEndpointInput,
      response: webhookEndpointSchema,
      errors: ["not_found"],
      handler: ({ params, body, ...ctx }) => updateWebhookEndpoint(ctx, owner(params), path(params).endpoint_id, body),
    }),
    delete: defineOperation({
      id: `delete${infix}WebhookEndpoint`,
      method: "DELETE",
      path: one,
      tag,
      summary: `Delete a webhook endpoint (${whose})`,
      description: "Its pending deliveries are dropped.",
      access: write,
      params,
      response: webhookEndpointSchema,
      errors: ["not_found"],
      handler: ({ params, ...ctx }) => deleteWebhookEndpoint(ctx, owner(params), path(params).endpoint_id),
    }),
    rotateSecret: defineOperation({
      id: `rotate${infix}WebhookEndpointSecret`,
      method: "POST",
      path: `${one}/rotate-secret`,
      tag,
      summary: `Rotate a webhook endpoint's signing secret (${whose})`,
      description: `${SECRET_NOTE} For 24 hours the previous secret signs too: both signatures are sent, space-separated.`,
      access: write,
      params,
      response: webhookEndpointWithSecretSchema,
      secret: true,
      errors: ["not_found"],
      handler: ({ params, ...ctx }) => rotateWebhookEndpointSecret(ctx, owner(params), path(params).endpoint_id),
    }),
    test: defineOperation({
      id: `test${infix}WebhookEndpoint`,
      method: "POST",
      path: `${one}/test`,
      tag,
      summary: `Send a test event (${whose})`,
      description: "Queues a `webhook.test` message to this endpoint; see its delivery in the deliveries list.",
      access: write,
      params,
      response: acceptedSchema,
      status: 202,
      errors: ["not_found", "conflict"],
      handler: ({ params, ...ctx }) => testWebhookEndpoint(ctx, owner(params), path(params).endpoint_id),
    }),
    deliveries: defineOperation({
      id: `list${infix}WebhookDeliveries`,
      method: "GET",
      path: `${one}/deliveries`,
      tag,
      summary: `List an endpoint's deliveries (${whose})`,
      description:
        "Newest first; kept 30 days. Attempts: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later; then `failed`.",
      access: read,
      params,
      query: listWebhookDeliveriesQuery,
      response: webhookDeliveryListSchema,
      errors: ["not_found"],
      handler: ({ params, query, ...ctx }) =>
        listWebhookDeliveries(ctx, owner(params), path(params).endpoint_id, query),
    }),
    retry: defineOperation({
      id: `retry${infix}WebhookDelivery`,
      method: "POST",
      path: `${one}/deliveries/{delivery_id}/retry`,
      tag,
      summary: `Retry a delivery now (${whose})`,
      description: "The same message (the same `webhook-id`) is sent again; a failed delivery gets a new schedule.",
      access: write,
      params: deliveryParams,
      response: acceptedSchema,
      status: 202,
      errors: ["not_found", "conflict"],
      handler: ({ params, ...ctx }) =>
        retryWebhookDelivery(
          ctx,
          owner(params),
          path(params).endpoint_id,
          (params as unknown as DeliveryPath).delivery_id,
        ),
    }),
  };
}

export const webhookOperations = endpointOperations({
  infix: "",
  base: "/api/v1/webhook-endpoints",
  read: { permission: "svc:system:webhooks:read" },
  write: { permission: "svc:system:webhooks:write" },
  owner: () => null,
  listParams: undefined,
  params: endpointIdParams,
  deliveryParams: deliveryIdParams,
  whose: "the platform's",
});

export const orgWebhookOperations = endpointOperations({
  infix: "Org",
  base: "/api/v1/organizations/{org_id}/webhook-endpoints",
  read: { permission: "svc:org:webhooks:read", org: "org_id" },
  write: { permission: "svc:org:webhooks:write", org: "org_id" },
  owner: (params) => params.org_id ?? null,
  params: orgEndpointIdParams,
  deliveryParams: orgDeliveryIdParams,
  listParams: z.strictObject({ org_id: id }),
  whose: "an organization's",
});

export const webhookEventTypeOperations = {
  list: defineOperation({
    id: "listWebhookEventTypes",
    method: "GET",
    path: "/api/v1/webhook-event-types",
    tag: PLATFORM_TAG,
    summary: "List the event types",
    description:
      'Every event an endpoint may subscribe to: changes (`<resource>.<past verb>`, by the operations that make them), system events, and `audit.event` (every audit event). `"*"` subscribes to every change and system event.',
    access: "authenticated",
    response: webhookEventTypeListSchema,
    handler: () => ({ data: EVENT_TYPE_CATALOG.map((e) => ({ ...e })) }),
  }),
};
