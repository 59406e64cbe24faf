import "server-only";
import type { Context } from "@/server/db/context";
import type { Actor } from "@/server/auth/actor";
import { conversationOwnerRequired, conversationUser, requireMessageAuthor } from "@/server/auth/authorize";
import { CoalescedTouch } from "@/server/db/bookkeeping";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import { decodeCursor, encodeCursor, newestFirst, paginate } from "@/server/services/pagination";
import type {
  AppendMessagesInput,
  CreateConversationInput,
  ListConversationsQuery,
  ListMessagesQuery,
  Message,
} from "@/lib/schemas/conversations";
import { historyQuery, MESSAGE_COLUMNS } from "./history-query";

// Conversations on an organization's orchestrator instances, and their messages in the
// time-partitioned messages table. Each message's created_at is distinct and increasing within
// its conversation (appends to one conversation are serialized), so (created_at, id) orders a
// history exactly and the history cursor is stable. Any chat access marks the instance's
// last_accessed_at, coalesced like API key use.

const instanceAccess = new CoalescedTouch({ table: "orchestrator_instances", column: "last_accessed_at" });

/** The conversation, when the caller may see it (its own, or any with svc:conversations:manage). */
async function requireConversation(db: Pick<DataLayer, "conversation">, actor: Actor, orgId: string, id: string) {
  const owner = conversationOwnerRequired(actor, orgId);
  const row = await db.conversation.findFirst({ where: { id, org_id: orgId, ...(owner ? { user_id: owner } : {}) } });
  if (!row) throw notFound("conversation");
  if (row.instance_id) instanceAccess.record(row.instance_id);
  return row;
}

export async function createConversation(ctx: Context, orgId: string, input: CreateConversationInput) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const userId = conversationUser(ctx.actor, orgId, input.user_id);
  const [instance, member] = await Promise.all([
    db.orchestratorInstance.findFirst({ where: { id: input.instance_id, org_id: orgId }, select: { id: true } }),
    db.userOrgMembership.findFirst({
      where: { user_id: userId, org_id: orgId, user: { is_deleted: false } },
      select: { id: true },
    }),
  ]);
  if (!instance) throw notFound("orchestrator instance");
  if (!member) throw validationFailed([{ path: "user_id", message: "is not a member of this organization" }]);
  const row = await db.conversation.create({
    data: { org_id: orgId, user_id: userId, instance_id: instance.id, title: input.title ?? null },
  });
  instanceAccess.record(instance.id);
  return row;
}

export async function listConversations(ctx: Context, orgId: string, query: ListConversationsQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const userId = conversationUser(ctx.actor, orgId, query.user_id);
  const where = { org_id: orgId, user_id: userId, ...(query.instance_id ? { instance_id: query.instance_id } : {}) };
  const visible = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  return paginate(query, newestFirst, (w) =>
    visible.conversation.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take }),
  );
}

export async function getConversation(
  ctx: Context,
  orgId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
) {
  return requireConversation(options.includeDeleted === true ? ctx.includingDeleted() : ctx.db, ctx.actor, orgId, id);
}

export async function deleteConversation(ctx: Context, orgId: string, id: string) {
  const { db } = ctx;
  await requireConversation(db, ctx.actor, orgId, id);
  return db.conversation.update({ where: { id }, data: { is_deleted: true } });
}

/** Brings a deleted conversation back; a live one answers as it is. */
export async function restoreConversation(ctx: Context, orgId: string, id: string) {
  const { db } = ctx;
  const deleted = await db.conversation.findFirst({ where: { id, org_id: orgId, is_deleted: true } });
  if (!deleted) return getConversation(ctx, orgId, id);
  return db.conversation.update({ where: { id, is_deleted: true }, data: { is_deleted: false } });
}

interface MessageRow {
  id: string;
  conv_id: string;
  turn_id: string;
  user_id: string;
  instance_id: string | null;
  role: Message["role"];
  content: string;
  status: string | null;
  is_compacted: boolean;
  source: string;
  metadata: Message["metadata"];
  created_at: string;
}

/** Appends messages in order, in one statement; returns them as stored. */
export async function appendMessages(
  ctx: Context,
  orgId: string,
  convId: string,
  input: AppendMessagesInput,
): Promise<{ data: Message[] }> {
  requireMessageAuthor(ctx.actor, orgId, input.messages);
  const { db } = ctx;
  const rows = await db.$transaction(async (tx) => {
    const conversation = await requireConversation(tx, ctx.actor, orgId, convId);
    // Serializes appends to this conversation, so timestamps never interleave.
    await tx.$queryRaw`SELECT id FROM conversations WHERE id = ${convId}::uuid FOR UPDATE`;
    const m = input.messages;
    return tx.$queryRawUnsafe<MessageRow[]>(
      `WITH start AS (
         SELECT GREATEST(clock_timestamp(), (SELECT max(created_at) + interval '1 microsecond' FROM messages WHERE conv_id = $1::uuid)) AS at
       )
       INSERT INTO messages (org_id, conv_id, turn_id, user_id, instance_id, role, content, status, source, metadata, created_at)
       SELECT $2::uuid, $1::uuid, t.turn_id, $3::uuid, $4::uuid, t.role, t.content, t.status, t.source, t.metadata,
              start.at + (t.n - 1) * interval '1 microsecond'
       FROM start, unnest($5::uuid[], $6::varchar[], $7::text[], $8::varchar[], $9::varchar[], $10::jsonb[])
            WITH ORDINALITY AS t(turn_id, role, content, status, source, metadata, n)
       RETURNING ${MESSAGE_COLUMNS}`,
      convId,
      orgId,
      conversation.user_id,
      conversation.instance_id,
      m.map((x) => x.turn_id),
      m.map((x) => x.role),
      m.map((x) => x.content),
      m.map((x) => x.status ?? null),
      m.map((x) => x.source),
      m.map((x) => JSON.stringify(x.metadata)),
    );
  });
  return { data: rows.sort((a, b) => (a.created_at < b.created_at ? -1 : 1)) };
}

// A history page ends at a message: its time and id, the columns the history is ordered by.
const isMessagePosition = (value: unknown): value is [string, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === "string" &&
  /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value[0]) &&
  typeof value[1] === "string" &&
  /^[0-9a-f-]{36}$/.test(value[1]);

// A conversation without (visible) messages gives one row whose message columns are all null.
type HistoryRow = { conversation_instance_id: string | null } & (MessageRow | { [K in keyof MessageRow]: null });

/** A conversation's history in order, without intent messages, a page at a time. */
export async function listMessages(ctx: Context, orgId: string, convId: string, query: ListMessagesQuery) {
  const cursor = decodeCursor(query.cursor, isMessagePosition);
  const after = cursor && { at: cursor[0], id: cursor[1] };
  // The hottest read of the API: straight through the pool, as a prepared statement.
  const rows = await ctx.queryRows<HistoryRow>(historyQuery(after !== undefined), [
    convId,
    orgId,
    query.limit + 1,
    conversationOwnerRequired(ctx.actor, orgId),
    ...(after ? [after.at, after.id] : []),
  ]);
  const conversation = rows[0];
  if (!conversation) throw notFound("conversation");
  if (conversation.conversation_instance_id) instanceAccess.record(conversation.conversation_instance_id);
  const data: MessageRow[] = [];
  for (const { conversation_instance_id: _instance, ...message } of rows.slice(0, query.limit)) {
    if (message.id !== null) data.push(message);
  }
  const last = data[data.length - 1];
  return {
    data,
    next_cursor: rows.length > query.limit && last ? encodeCursor([last.created_at, last.id]) : null,
  };
}

/** Marks messages of the conversation as compacted by the context policy; returns how many changed. */
export async function compactMessages(ctx: Context, orgId: string, convId: string, messageIds: string[]) {
  const { db } = ctx;
  const conversation = await requireConversation(db, ctx.actor, orgId, convId);
  const compacted = await db.$executeRaw`
    UPDATE messages SET is_compacted = true
    WHERE conv_id = ${convId}::uuid AND id = ANY(${messageIds}::uuid[]) AND created_at >= ${conversation.created_at}
      AND NOT is_compacted`;
  if (compacted === 0 && messageIds.length > 0) {
    const known = await db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM messages WHERE conv_id = ${convId}::uuid AND id = ANY(${messageIds}::uuid[])`;
    if (Number(known[0]?.n ?? 0) === 0)
      throw new DomainError("not_found", "None of these messages is in the conversation.");
  }
  return { compacted };
}
