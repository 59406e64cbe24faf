import "server-only";
import type { Context } from "@/server/db/context";
import { Prisma } from "@/generated/prisma/client";
import type { z } from "zod";
import type { auditEventSchema, ListAuditEventsQuery } from "@/lib/schemas/audit";
import type { DataLayer } from "@/server/db/data-layer";
import { decodeCursor, encodeCursor, newestFirst, type Page } from "@/server/services/pagination";
import { UUID } from "./record";

// Reading the audit trail: its list, filtered and paged by cursor, and its latest events for the
// overview, each event named as people know its actor and target.

type Row = Prisma.AuditEventGetPayload<object>;
type AuditEvent = z.output<typeof auditEventSchema>;

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

// A mapper: the actor's and the target's columns are nested objects in the API.
function toAuditEvent(row: Row, username: string | null): AuditEvent {
  return {
    id: row.id,
    occurred_at: row.occurred_at,
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
