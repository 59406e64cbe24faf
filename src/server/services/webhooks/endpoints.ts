import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import type {
  CreateWebhookEndpointInput,
  ListWebhookDeliveriesQuery,
  UpdateWebhookEndpointInput,
  webhookDeliveryListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from "@/lib/schemas/webhooks";
import { MAX_ORG_ENDPOINTS } from "@/lib/schemas/webhooks";
import type { PageQuery } from "@/server/services/pagination";
import type { DataLayer } from "@/server/db/data-layer";
import { env } from "@/server/env";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { baseUrlProblem } from "@/server/services/llm-configs/base-url";
import { requireOrganization } from "@/server/services/organizations/service";
import { byUuidDesc, newestFirst, paginate } from "@/server/services/pagination";
import { emitEvent, transactionSink } from "./events";
import { forgetSubscribers, queueDeliveries, wakeAfterCommit } from "./outbox";
import { newSecret, openSecret, ROTATION_OVERLAP_MS, sealSecret } from "./signing";

// Webhook endpoints of an organization (orgId) or of the platform (orgId null), and their
// deliveries. Access is decided before these run (svc:org:webhooks:* / svc:system:webhooks:*);
// here an endpoint is looked up within its owner only, so another owner's looks missing.

type Row = Prisma.WebhookEndpointGetPayload<object>;
type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;
type WebhookEndpointWithSecret = z.output<typeof webhookEndpointWithSecretSchema>;
type Owner = string | null;

// A mapper, kept as a guard: the stored secrets (ciphertexts) are named nowhere in an answer.
function toEndpoint(row: Row): WebhookEndpoint {
  return {
    id: row.id,
    org_id: row.org_id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function checkUrl(url: string) {
  const problem = baseUrlProblem(url, env().SVC_ALLOW_HTTP_LOOPBACK === "1");
  if (problem) throw validationFailed([{ path: "url", message: problem }]);
}

/** Once the change commits, this process reads the endpoints again (others within a second). */
const endpointsChanged = (ctx: Context) => ctx.afterCommit(forgetSubscribers);

async function requireOwner(db: DataLayer, orgId: Owner) {
  if (orgId !== null) await requireOrganization(db, orgId);
}

async function requireEndpoint(db: DataLayer, orgId: Owner, endpointId: string): Promise<Row> {
  const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, org_id: orgId } });
  if (!row) throw notFound("webhook endpoint");
  return row;
}

export async function createWebhookEndpoint(
  ctx: Context,
  orgId: Owner,
  input: CreateWebhookEndpointInput,
): Promise<WebhookEndpointWithSecret> {
  checkUrl(input.url);
  const { db } = ctx;
  await requireOwner(db, orgId);
  if (orgId !== null && (await db.webhookEndpoint.count({ where: { org_id: orgId } })) >= MAX_ORG_ENDPOINTS)
    throw new DomainError("quota_exceeded", `An organization may have at most ${MAX_ORG_ENDPOINTS} webhook endpoints.`);
  // The secret's ciphertext is bound to the row, so the row's id is drawn first.
  const [{ id }] = (await db.$queryRaw<{ id: string }[]>`SELECT svc_uuid_v7()::text AS id`) as [{ id: string }];
  const secret = newSecret();
  const row = await db.webhookEndpoint.create({
    data: {
      id,
      org_id: orgId,
      url: input.url,
      description: input.description,
      event_types: input.event_types,
      enabled: input.enabled,
      secret_encrypted: sealSecret(id, secret),
    },
  });
  endpointsChanged(ctx);
  return { ...toEndpoint(row), secret };
}

export async function listWebhookEndpoints(ctx: Context, orgId: Owner, query: PageQuery) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  return paginate(
    query,
    newestFirst,
    (w) => db.webhookEndpoint.findMany({ where: { org_id: orgId, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toEndpoint,
  );
}

export async function getWebhookEndpoint(ctx: Context, orgId: Owner, endpointId: string) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  return toEndpoint(await requireEndpoint(db, orgId, endpointId));
}

export async function updateWebhookEndpoint(
  ctx: Context,
  orgId: Owner,
  endpointId: string,
  input: UpdateWebhookEndpointInput,
) {
  if (input.url !== undefined) checkUrl(input.url);
  const { db } = ctx;
  await requireOwner(db, orgId);
  const existing = await requireEndpoint(db, orgId, endpointId);
  const reenabled = input.enabled === true && !existing.enabled;
  const row = await db.webhookEndpoint.update({
    where: { id: existing.id },
    data: {
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.event_types === undefined ? {} : { event_types: input.event_types }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
      ...(reenabled ? { disabled_reason: null, failing_since: null } : {}),
    },
  });
  endpointsChanged(ctx);
  return toEndpoint(row);
}

export async function deleteWebhookEndpoint(ctx: Context, orgId: Owner, endpointId: string) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  const existing = await requireEndpoint(db, orgId, endpointId);
  const row = await db.webhookEndpoint.update({ where: { id: existing.id }, data: { is_deleted: true } });
  endpointsChanged(ctx);
  return toEndpoint(row);
}

/** A new secret, returned once; the previous one keeps signing (beside it) for 24 h. */
export async function rotateWebhookEndpointSecret(ctx: Context, orgId: Owner, endpointId: string) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  const existing = await requireEndpoint(db, orgId, endpointId);
  const secret = newSecret();
  const row = await db.webhookEndpoint.update({
    where: { id: existing.id },
    data: {
      secret_encrypted: sealSecret(existing.id, secret),
      previous_secret_encrypted: sealSecret(
        existing.id,
        openSecret(existing.id, existing.secret_encrypted),
        "previous",
      ),
      previous_secret_expires_at: new Date(Date.now() + ROTATION_OVERLAP_MS),
    },
  });
  return { ...toEndpoint(row), secret };
}

/** Queues a `webhook.test` message to this endpoint only (whatever it subscribes to). */
export async function testWebhookEndpoint(ctx: Context, orgId: Owner, endpointId: string) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  const row = await requireEndpoint(db, orgId, endpointId);
  if (!row.enabled) throw new DomainError("conflict", "The endpoint is disabled: enable it first.");
  const emitted = await emitEvent(
    ctx,
    "webhook.test",
    orgId,
    { webhook_endpoint: { id: row.id, org_id: row.org_id, url: row.url } },
    { id: row.id, org_id: row.org_id, event_types: ["webhook.test"] },
  );
  const delivery = await db.webhookDelivery.findFirst({
    where: { message_id: emitted!.messageId, endpoint_id: row.id },
    select: { id: true },
  });
  return { delivery_id: delivery!.id, message_id: emitted!.messageId };
}

type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: { message: { select: { event_type: true } } } }>;
type WebhookDelivery = z.output<typeof webhookDeliveryListSchema>["data"][number];

// A mapper: the event type comes nested from the delivery's message.
function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    message_id: row.message_id,
    event_type: row.message.event_type,
    status: row.status as WebhookDelivery["status"],
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_response: row.last_response,
    next_attempt_at: row.next_attempt_at,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
  };
}

/** Newest first; deliveries are kept 30 days. */
export async function listWebhookDeliveries(
  ctx: Context,
  orgId: Owner,
  endpointId: string,
  query: ListWebhookDeliveriesQuery,
) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  await requireEndpoint(db, orgId, endpointId);
  const where = { endpoint_id: endpointId, ...(query.status ? { status: query.status } : {}) };
  return paginate(
    query,
    byUuidDesc("id"),
    (w) =>
      db.webhookDelivery.findMany({
        where: { ...where, ...w.after },
        orderBy: w.orderBy,
        take: w.take,
        include: { message: { select: { event_type: true } } },
      }),
    toDelivery,
  );
}

/** Attempts the delivery again now (a failed one gets the whole schedule again). */
export async function retryWebhookDelivery(ctx: Context, orgId: Owner, endpointId: string, deliveryId: string) {
  const { db } = ctx;
  await requireOwner(db, orgId);
  const endpoint = await requireEndpoint(db, orgId, endpointId);
  if (!endpoint.enabled) throw new DomainError("conflict", "The endpoint is disabled: enable it first.");
  const delivery = await db.webhookDelivery.findFirst({ where: { id: deliveryId, endpoint_id: endpoint.id } });
  if (!delivery) throw notFound("webhook delivery");
  await db.webhookDelivery.update({
    where: { id: delivery.id },
    data: {
      status: "pending",
      next_attempt_at: new Date(),
      ...(delivery.status === "failed" ? { attempts: 0 } : {}),
    },
  });
  await queueDeliveries(transactionSink(db), [{ message_id: delivery.message_id, endpoint_id: endpoint.id }]);
  wakeAfterCommit(ctx);
  return { delivery_id: delivery.id, message_id: delivery.message_id };
}
