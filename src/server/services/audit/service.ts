import "server-only";
import type { Context } from "@/server/db/context";
import type pg from "pg";
import { Prisma } from "@/generated/prisma/client";
import { SECRET_FIELDS, type AuditEvent, type ListAuditEventsQuery } from "@/lib/schemas/audit";
import type { Actor } from "@/server/auth/actor";
import type { DataLayer } from "@/server/db/data-layer";
import type { Write } from "@/server/db/unit-of-work";
import type { RequestFacts } from "@/server/http/client";
import { log } from "@/server/log";
import { decodeCursor, encodeCursor, newestFirst, type Page } from "@/server/services/pagination";
import {
  addressees,
  insertDeliveries,
  outboxRows,
  pairs,
  queueAfterCommit,
  subscribers,
  type DeliveryJob,
} from "@/server/services/webhooks/outbox";

// The audit trail. A change's event is written in the transaction that made the change
// (operations/invoke.ts); refusals and sign-ins, which change nothing, on their own.

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
  if (actor.kind === "system")
    return { actor_user_id: null, actor_auth: actor.name === "cli" ? "cli" : "system", actor_key_prefix: null };
  return {
    actor_user_id: actor.userId,
    actor_auth: actor.kind,
    actor_key_prefix: actor.kind === "api_key" ? actor.key.prefix : null,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function rowOf(entry: AuditEntry): Prisma.AuditEventCreateInput {
  return {
    ...actorColumns(entry),
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id?.slice(0, 255) ?? null,
    org_id: entry.orgId && UUID.test(entry.orgId) ? entry.orgId : null,
    request_id: entry.request.requestId,
    ip: entry.request.ip?.slice(0, 64) ?? null,
    user_agent: entry.request.userAgent?.slice(0, 255) ?? null,
    changes: entry.changes ? (entry.changes as Prisma.InputJsonObject) : Prisma.DbNull,
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

// Sent before the statement that writes a change's webhook messages (the last before its COMMIT, so
// nothing else runs under it): the lengths of its arrays made PostgreSQL plan it anew on every call,
// which took longer than running it; its plan does not depend on the values, so one plan serves.
const GENERIC_PLANS = "SET LOCAL plan_cache_mode = force_generic_plan";

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
  await db.$executeRawUnsafe(GENERIC_PLANS);
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

// ---------------------------------------------------------------------------------------------
// Reading the trail

type Row = Prisma.AuditEventGetPayload<object>;

/**
 * Newest first (by occurred_at, then id), filtered; `orgId`: that organization's events only.
 * Every filter has an index in the list's order (see the migration search_and_history_indexes), and
 * a page continues from its cursor's (occurred_at, id), so a page costs the same whatever the
 * trail's size and however deep it lies. The cursor is the last event's id: its time is read back
 * from the table (a cursor of an event since purged ends the list, as everything older is gone too).
 */
export async function listAuditEvents(
  ctx: Context,
  query: ListAuditEventsQuery,
  orgId?: string,
): Promise<Page<AuditEvent>> {
  const { db } = ctx;
  const cursor = decodeCursor(query.cursor, newestFirst.accepts);
  const filters = [
    orgId !== undefined ? Prisma.sql`org_id = ${orgId}::uuid` : null,
    query.action !== undefined ? Prisma.sql`action = ${query.action}` : null,
    query.actor_user_id !== undefined ? Prisma.sql`actor_user_id = ${query.actor_user_id}::uuid` : null,
    // By the name people know: every user who holds or held it (a deleted user's name may be reused).
    query.actor_username !== undefined
      ? Prisma.sql`actor_user_id IN (SELECT u.id FROM users u WHERE lower(u.username) = lower(${query.actor_username}))`
      : null,
    query.target_id !== undefined ? Prisma.sql`target_id = ${query.target_id}` : null,
    query.since !== undefined ? Prisma.sql`occurred_at >= ${new Date(query.since)}` : null,
    query.until !== undefined ? Prisma.sql`occurred_at < ${new Date(query.until)}` : null,
    cursor !== undefined
      ? Prisma.sql`(occurred_at, id) < ((SELECT c.occurred_at FROM audit_events c WHERE c.id = ${cursor}::uuid), ${cursor}::uuid)`
      : null,
  ].filter((filter): filter is Prisma.Sql => filter !== null);
  const rows = await db.$queryRaw<Row[]>`
    SELECT * FROM audit_events
    WHERE ${filters.length > 0 ? Prisma.join(filters, " AND ") : Prisma.sql`true`}
    ORDER BY occurred_at DESC, id DESC
    LIMIT ${query.limit + 1}`;
  const data = rows.slice(0, query.limit);
  const last = data[data.length - 1];
  return {
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.id) : null,
    data: await named(ctx, data),
  };
}

/** The latest `limit` events, newest first as in the list, named as the list names them. */
export async function latestAuditEvents(ctx: Context, limit: number): Promise<AuditEvent[]> {
  const rows = await ctx.db.$queryRaw<Row[]>`
    SELECT * FROM audit_events ORDER BY occurred_at DESC, id DESC LIMIT ${limit}`;
  return named(ctx, rows);
}

type NameLookup = (db: DataLayer, ids: string[]) => Promise<{ id: string; name: string }[]>;
const byName = { id: true, name: true } as const;
const usernames: NameLookup = async (db, ids) =>
  (await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true } })).map((u) => ({
    id: u.id,
    name: u.username,
  }));

/** How each kind of target (its type in the trail) is named: the things people name. */
const TARGET_NAMES: Readonly<Record<string, NameLookup>> = {
  user: usernames,
  member: usernames,
  organization: (db, ids) => db.organization.findMany({ where: { id: { in: ids } }, select: byName }),
  api_key: (db, ids) => db.apiKey.findMany({ where: { id: { in: ids } }, select: byName }),
  role: (db, ids) => db.role.findMany({ where: { id: { in: ids } }, select: byName }),
  oauth_client: (db, ids) => db.oauth2Client.findMany({ where: { id: { in: ids } }, select: byName }),
  llm_config: (db, ids) => db.organizationLlmConfig.findMany({ where: { id: { in: ids } }, select: byName }),
  orchestrator: (db, ids) => db.orchestratorInstance.findMany({ where: { id: { in: ids } }, select: byName }),
  central_point: (db, ids) => db.centralPoint.findMany({ where: { id: { in: ids } }, select: byName }),
};

/**
 * Events with their actors' usernames and their targets' names as they are now, deleted ones' too
 * (the trail outlives them): one query per kind of thing the page names.
 */
async function named(ctx: Context, rows: readonly Row[]): Promise<AuditEvent[]> {
  const db = ctx.includingDeleted();
  const wanted = new Map<string, Set<string>>([["user", new Set()]]);
  for (const row of rows) {
    if (row.actor_user_id) wanted.get("user")!.add(row.actor_user_id);
    const type = row.target_type === "member" ? "user" : row.target_type;
    if (type && row.target_id && TARGET_NAMES[type] && UUID.test(row.target_id)) {
      if (!wanted.has(type)) wanted.set(type, new Set());
      wanted.get(type)!.add(row.target_id);
    }
  }
  const names = new Map<string, string>();
  await Promise.all(
    [...wanted].map(async ([type, ids]) => {
      if (ids.size === 0) return;
      for (const { id, name } of await TARGET_NAMES[type]!(db, [...ids])) names.set(`${type}:${id}`, name);
    }),
  );
  return rows.map((row) => {
    const type = row.target_type === "member" ? "user" : row.target_type;
    const event = toAuditEvent(row, row.actor_user_id ? (names.get(`user:${row.actor_user_id}`) ?? null) : null);
    event.target.name = type && row.target_id ? (names.get(`${type}:${row.target_id}`) ?? null) : null;
    return event;
  });
}

function toAuditEvent(row: Row, username: string | null): AuditEvent {
  return {
    id: row.id,
    occurred_at: row.occurred_at.toISOString(),
    actor: {
      user_id: row.actor_user_id,
      username,
      auth: row.actor_auth as AuditEvent["actor"]["auth"],
      key_prefix: row.actor_key_prefix,
    },
    action: row.action,
    target: { type: row.target_type, id: row.target_id, name: null },
    org_id: row.org_id,
    request_id: row.request_id,
    ip: row.ip,
    user_agent: row.user_agent,
    changes: (row.changes as AuditEvent["changes"]) ?? null,
    outcome: row.outcome as AuditEvent["outcome"],
  };
}

// ---------------------------------------------------------------------------------------------
// Retention

export const RETENTION_SETTING = "audit.retention_days";
export const DEFAULT_RETENTION_DAYS = 365;

/** Removes events older than `audit.retention_days` (default 365); returns how many. */
export async function purgeAuditEvents(client: Pick<pg.ClientBase, "query">): Promise<number> {
  const result = await client.query(
    `DELETE FROM audit_events WHERE occurred_at < now() - make_interval(days => COALESCE(
       (SELECT (value #>> '{}')::integer FROM platform_settings
         WHERE key = $1 AND is_deleted = false AND jsonb_typeof(value) = 'number' AND (value #>> '{}') ~ '^[1-9][0-9]{0,5}$'),
       $2))`,
    [RETENTION_SETTING, DEFAULT_RETENTION_DAYS],
  );
  return result.rowCount ?? 0;
}
