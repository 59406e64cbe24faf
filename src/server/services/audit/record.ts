import "server-only";
import type { Context } from "@/server/db/context";
import { Prisma } from "@/generated/prisma/client";
import { SECRET_FIELDS } from "@/lib/schemas/audit";
import { isScimActor, type Actor } from "@/server/auth/actor";
import type { DataLayer } from "@/server/db/data-layer";
import type { Write } from "@/server/db/unit-of-work";
import type { RequestFacts } from "@/server/http/client";
import { log } from "@/server/log";
import {
  addressees,
  insertDeliveries,
  outboxRows,
  pairs,
  queueAfterCommit,
  subscribers,
  type DeliveryJob,
} from "@/server/services/webhooks/outbox";

// Writing the audit trail. A change's event is written in the transaction that made the change
// (operations/invoke.ts); refusals and sign-ins, which change nothing, on their own. What a change
// changed is worked out here too, from the writes its unit of work journaled.

export const NO_REQUEST: RequestFacts = { requestId: null, ip: null, userAgent: null };

export interface AuditEntry {
  /** Who acted; null for a sign-in that named nobody known. */
  actor: Actor | null;
  /** For a sign-in: the user it was for, when known. */
  userId?: string | null;
  action: string;
  outcome: "success" | "denied";
  target: { type: string | null; id: string | null };
  orgId: string | null;
  changes?: Changes | null;
  request: RequestFacts;
  /** The webhook event type, when not the one the catalog gives its action (a key revoked as leaked). */
  eventType?: string;
}

type Change = { old: unknown; new: unknown } | { redacted: true };
export type Changes = Record<string, Change>;

function actorColumns(entry: AuditEntry) {
  const { actor } = entry;
  if (!actor) return { actor_user_id: entry.userId ?? null, actor_auth: "session", actor_key_prefix: null };
  if (isScimActor(actor)) return { actor_user_id: null, actor_auth: "scim", actor_key_prefix: actor.token.prefix };
  if (actor.kind === "system")
    return { actor_user_id: null, actor_auth: actor.name === "cli" ? "cli" : "system", actor_key_prefix: null };
  return {
    actor_user_id: actor.userId,
    actor_auth: actor.kind,
    actor_key_prefix: actor.kind === "api_key" ? actor.key.prefix : null,
  };
}

/** A uuid column's form: an org id of another form is written as null, a target id so is never named. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What PostgreSQL's text and jsonb cannot hold, NUL, recorded as the symbol for it, U+2400 (␀). */
export const NUL_AS_RECORDED = "\u2400";

const storable = (text: string) => text.replaceAll("\u0000", NUL_AS_RECORDED);
const storableOrNull = (text: string | null | undefined) =>
  text === null || text === undefined ? null : storable(text);

/** A JSON value with NUL in its strings (keys too) made storable. */
function storableJson(value: unknown): unknown {
  if (typeof value === "string") return storable(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [storable(key), storableJson(each)]));
  return value;
}

// What the caller typed (a target id from the path) is recorded as typed, but for NUL, which the
// database refuses: an event that cannot be written would be lost, and a refusal with it.
function rowOf(entry: AuditEntry): Prisma.AuditEventCreateInput {
  return {
    ...actorColumns(entry),
    action: entry.action,
    target_type: entry.target.type,
    target_id: storableOrNull(entry.target.id?.slice(0, 255)),
    org_id: entry.orgId && UUID.test(entry.orgId) ? entry.orgId : null,
    request_id: entry.request.requestId,
    ip: entry.request.ip?.slice(0, 64) ?? null,
    user_agent: storableOrNull(entry.request.userAgent?.slice(0, 255)),
    changes: entry.changes ? (storableJson(entry.changes) as Prisma.InputJsonObject) : Prisma.DbNull,
    outcome: entry.outcome,
  };
}

// One plain statement: it runs on every change, and Prisma's building of a create costs more than
// sending it.
const INSERT_EVENT = `INSERT INTO audit_events (actor_user_id, actor_auth, actor_key_prefix, action, target_type, target_id,
  org_id, request_id, ip, user_agent, changes, outcome) VALUES ($1::uuid, $2, $3, $4, $5, $6, $7::uuid, $8, $9, $10, $11::jsonb, $12)`;

// The same event with its webhook messages (section 14), when an endpoint wants it: each message's
// payload is built here from the row as written, in the shape of GET /api/v1/audit-events items.
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
// The deliveries go in the same statement: their messages' foreign keys are checked at its end.
const INSERT_EVENT_WITH_MESSAGES = `WITH e AS (${INSERT_EVENT} RETURNING *), m AS (
INSERT INTO webhook_messages (id, event_type, org_id, payload)
SELECT t.id, t.type, e.org_id, jsonb_build_object('type', t.type,
  'timestamp', to_char(e.occurred_at AT TIME ZONE 'UTC', ${ISO}),
  'data', jsonb_build_object('id', e.id, 'occurred_at', to_char(e.occurred_at AT TIME ZONE 'UTC', ${ISO}),
    'actor', jsonb_build_object('user_id', e.actor_user_id,
      'username', (SELECT u.username FROM users u WHERE u.id = e.actor_user_id),
      'auth', e.actor_auth, 'key_prefix', e.actor_key_prefix),
    'action', e.action, 'target', jsonb_build_object('type', e.target_type, 'id', e.target_id),
    'org_id', e.org_id, 'request_id', e.request_id, 'ip', e.ip, 'user_agent', e.user_agent,
    'changes', e.changes, 'outcome', e.outcome))
FROM e, unnest($13::uuid[], $14::text[]) AS t(id, type) RETURNING id)
${insertDeliveries(15)}
  WHERE d.message_id IN (SELECT id FROM m)`;

type Statements = Pick<DataLayer, "$executeRawUnsafe" | "$queryRawUnsafe">;

/**
 * Sends the event's statement, with the webhook messages and deliveries of the endpoints that want
 * it (none: the one INSERT), and answers those deliveries, whose jobs are queued once it commits.
 */
async function writeEvent(db: Statements, entry: AuditEntry): Promise<DeliveryJob[]> {
  const row = rowOf(entry);
  const values = [
    row.actor_user_id,
    row.actor_auth,
    row.actor_key_prefix,
    row.action,
    row.target_type,
    row.target_id,
    row.org_id,
    row.request_id,
    row.ip,
    row.user_agent,
    entry.changes ? JSON.stringify(row.changes) : null,
    row.outcome,
  ];
  const addressed = addressees(await subscribers(db), {
    action: entry.action,
    outcome: entry.outcome,
    orgId: (row.org_id as string | null) ?? null,
    eventType: entry.eventType,
  });
  if (addressed.length === 0) {
    await db.$executeRawUnsafe(INSERT_EVENT, ...values);
    return [];
  }
  const outbox = outboxRows(addressed);
  await db.$executeRawUnsafe(
    INSERT_EVENT_WITH_MESSAGES,
    ...values,
    outbox.messageIds,
    outbox.types,
    outbox.deliveryMessages,
    outbox.deliveryEndpoints,
  );
  return pairs(outbox);
}

/**
 * Writes the event of a change in the change's own transaction (its context's), with the webhook
 * messages and deliveries of the endpoints that want it: sent last, it commits or rolls back with
 * the change.
 */
export async function recordChange(ctx: Pick<Context, "db" | "afterCommit">, entry: AuditEntry): Promise<void> {
  queueAfterCommit(ctx.afterCommit, await writeEvent(ctx.db, entry));
}

/**
 * Writes an event that goes with no change (a refusal, a sign-in) through `db`, with its webhook
 * messages when an endpoint wants it. A database that cannot take it does not change the answer the
 * caller gets; the failure is logged.
 */
export async function recordAlone(db: DataLayer, entry: AuditEntry): Promise<void> {
  try {
    const list = await subscribers(db);
    if (addressees(list, { action: entry.action, outcome: entry.outcome, orgId: entry.orgId }).length > 0) {
      const deliveries = await db.$transaction((tx) => writeEvent(tx, entry));
      queueAfterCommit((hook) => hook(), deliveries);
    } else await db.auditEvent.create({ data: rowOf(entry), select: { id: true } });
  } catch (error) {
    log.error("could not record an audit event", {
      action: entry.action,
      outcome: entry.outcome,
      error: (error as Error).message,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// What changed

const jsonSafe = (value: unknown): unknown =>
  value === undefined
    ? null
    : JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
const same = (a: unknown, b: unknown) => JSON.stringify(jsonSafe(a)) === JSON.stringify(jsonSafe(b));
const rowId = (write: Write) => (write.after?.id ?? write.before?.id) as string | undefined;

/**
 * The fields a unit of work changed on its target row (on the first row it wrote when none is the
 * target), with their values before and after; a secret field by its name only.
 */
export function changesOf(writes: readonly Write[], targetId: string | null): Changes | null {
  const onTarget = writes.filter((write) => targetId !== null && rowId(write) === targetId);
  const chosen = onTarget.length > 0 ? onTarget : writes.slice(0, 1);
  const changes: Changes = {};
  for (const write of chosen) {
    for (const field of write.fields) {
      // A secret the write set is named, whatever it was set to: its values are never compared here.
      if (SECRET_FIELDS.has(field)) {
        changes[field] = { redacted: true };
        continue;
      }
      const before = write.before?.[field] ?? null;
      const after = (write.after && field in write.after ? write.after[field] : write.values[field]) ?? null;
      const known = changes[field];
      if (known && "old" in known) known.new = jsonSafe(after);
      else changes[field] = { old: jsonSafe(before), new: jsonSafe(after) };
    }
  }
  for (const [field, change] of Object.entries(changes))
    if ("old" in change && same(change.old, change.new)) delete changes[field];
  return Object.keys(changes).length > 0 ? changes : null;
}
