import "server-only";
import { randomUUID } from "node:crypto";
import { AUDIT_STREAM, changeEventType, wants } from "@/lib/event-types";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { runningQueue, wake, type StatementSink } from "@/server/jobs/queue";
import { log } from "@/server/log";
import { processState } from "@/server/process-state";
import { currentTraceparent } from "@/server/tracing/spans";

// The outbox: an event's messages, one delivery per endpoint that wants it, are written in the
// transaction of the change they announce (with its audit event), so a change rolled back sends
// nothing and one committed is never lost. Which endpoints want what is kept in memory, so a change
// no endpoint wants sends nothing more to the database. See docs/decisions/031-webhook-outbox.md.

export const DELIVERY_QUEUE = "webhook-delivery";

export interface Subscriber {
  id: string;
  org_id: string | null;
  event_types: string[];
}

/** How long this process trusts its list of endpoints before reading it again (ms). */
const SUBSCRIBERS_TTL_MS = 1_000;

const shared = processState("webhookSubscribers", () => ({}));

/** Endpoints enabled now, from memory when read within the last second, else read through `db`. */
export async function subscribers(db: Pick<DataLayer, "$queryRawUnsafe">): Promise<Subscriber[]> {
  const cached = shared.read;
  if (cached && Date.now() - cached.at < SUBSCRIBERS_TTL_MS) return cached.list;
  // Read in the asking change's transaction when there is one: the embedded database serves one
  // session at a time, so a second connection would wait for the very transaction asking.
  shared.reading ??= db
    .$queryRawUnsafe<Subscriber[]>(
      "SELECT id, org_id, event_types FROM webhook_endpoints WHERE enabled AND NOT is_deleted",
    )
    .then((list) => {
      shared.read = { at: Date.now(), list };
      return list;
    })
    .finally(() => (shared.reading = undefined));
  return shared.reading;
}

/** Forgets the list (after this process changed an endpoint): the next event reads it again. */
export const forgetSubscribers = (): void => {
  shared.read = undefined;
};

export interface Addressed {
  type: string;
  endpointIds: string[];
}

/** The event types an audit event stands for, each with the endpoints that want it. */
export function addressees(
  list: readonly Subscriber[],
  event: { action: string; outcome: string; orgId: string | null; eventType?: string },
): Addressed[] {
  const types = [AUDIT_STREAM];
  const change = event.outcome === "success" ? (event.eventType ?? changeEventType(event.action)) : undefined;
  if (change) types.unshift(change);
  return addressedTo(list, types, event.orgId);
}

/** For each type, the endpoints of that organization (and the platform's) that want it; types nobody wants left out. */
export function addressedTo(list: readonly Subscriber[], types: readonly string[], orgId: string | null): Addressed[] {
  return types
    .map((type) => ({
      type,
      endpointIds: list
        .filter((s) => (s.org_id === null || s.org_id === orgId) && wants(s.event_types, type))
        .map((s) => s.id),
    }))
    .filter((a) => a.endpointIds.length > 0);
}

/** The messages and deliveries of `addressed`: ids and arrays for one INSERT of each. */
export function outboxRows(addressed: readonly Addressed[]) {
  const messageIds: string[] = [];
  const types: string[] = [];
  const deliveryMessages: string[] = [];
  const deliveryEndpoints: string[] = [];
  for (const { type, endpointIds } of addressed) {
    const messageId = randomUUID();
    messageIds.push(messageId);
    types.push(type);
    for (const endpointId of endpointIds) {
      deliveryMessages.push(messageId);
      deliveryEndpoints.push(endpointId);
    }
  }
  return { messageIds, types, deliveryMessages, deliveryEndpoints };
}

// Only endpoints still enabled when the change commits get a delivery.
/** The deliveries' INSERT, its (message, endpoint) pairs in parameters number `first` and the next. */
export const insertDeliveries = (first = 1) => `INSERT INTO webhook_deliveries (message_id, endpoint_id)
  SELECT d.message_id, d.endpoint_id FROM unnest($${first}::uuid[], $${first + 1}::uuid[]) AS d(message_id, endpoint_id)
  JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled AND NOT w.is_deleted`;

export interface DeliveryJob {
  message_id: string;
  endpoint_id: string;
  /** The span of the change that queued it, which the delivery's trace links to. */
  traceparent?: string;
}

/**
 * Queues a delivery job per (message, endpoint), through `sink` when given (a transaction, or a
 * unit's COMMIT), else on the queue's own connection. Where no queue runs in this process (the
 * CLI), the deliveries stay pending and the queue's sweep (jobs/registry.ts) queues them within
 * a few minutes.
 */
export async function queueDeliveries(
  sink: StatementSink | undefined,
  deliveries: readonly DeliveryJob[],
  startAfter?: Date,
): Promise<void> {
  const state = await runningQueue()?.catch(() => undefined);
  if (!state || deliveries.length === 0) return;
  await state.boss.insert(
    DELIVERY_QUEUE,
    deliveries.map((data) => ({ data, ...(startAfter ? { startAfter } : {}) })),
    sink ? { db: sink } : {},
  );
}

/** Jobs of one relay INSERT at most. */
const RELAY_BATCH = 500;

const relay = processState("deliveryRelay", () => ({}));

/**
 * Queues the delivery jobs of a change once it has committed, off the change's own path: pg-boss's
 * INSERT into its job table cost a change as much as the rest of its webhook writes (decision
 * 031). The commits of one turn of the event loop share one INSERT. The deliveries themselves are
 * written with the change, so should this process die before the INSERT, or it fail, the upkeep's
 * sweep queues them.
 */
export function queueAfterCommit(afterCommit: Context["afterCommit"], deliveries: readonly DeliveryJob[]): void {
  if (deliveries.length === 0 || !runningQueue()) return;
  const traceparent = currentTraceparent();
  afterCommit(() => {
    (relay.waiting ??= []).push(...(traceparent ? deliveries.map((job) => ({ ...job, traceparent })) : deliveries));
    relay.relaying ??= relayJobs().finally(() => (relay.relaying = undefined));
  });
}

/** How long the relay waits before trying again when the database refused its INSERT (ms). */
const RELAY_RETRY_MS = 1_000;

async function relayJobs(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const waiting = relay.waiting ?? [];
  let failures = 0;
  while (waiting.length > 0) {
    const batch = waiting.splice(0, RELAY_BATCH);
    try {
      await queueDeliveries(undefined, batch);
      wake(DELIVERY_QUEUE);
      failures = 0;
    } catch (error) {
      // The database is away: try again while this process lives (no change commits meanwhile, so
      // the list cannot grow); should it end first, the upkeep's sweep queues them.
      waiting.unshift(...batch);
      if (failures++ === 0)
        log.warn("delivery jobs not queued yet; trying again", { jobs: batch.length, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, RELAY_RETRY_MS).unref());
    }
  }
}

export const pairs = (rows: ReturnType<typeof outboxRows>): DeliveryJob[] =>
  rows.deliveryMessages.map((message_id, i) => ({ message_id, endpoint_id: rows.deliveryEndpoints[i]! }));

/** Wakes this process's delivery workers once the change commits. */
export const wakeAfterCommit = (ctx: Pick<Context, "afterCommit">) => ctx.afterCommit(() => wake(DELIVERY_QUEUE));
