import "server-only";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { wake, type StatementSink } from "@/server/jobs/queue";
import {
  addressedTo,
  DELIVERY_QUEUE,
  insertDeliveries,
  outboxRows,
  pairs,
  queueDeliveries,
  subscribers,
  type Subscriber,
} from "./outbox";

// Events that no operation makes: the key lifecycle's, an endpoint disabled, a test message.
// Written like a change's (message, deliveries and jobs in one transaction: the change's when there
// is one), with `data` naming the subject.

/** A pg-boss `db` that runs statements through `db` (a transaction's). */
export const transactionSink = (db: Pick<DataLayer, "$queryRawUnsafe">): StatementSink => ({
  async executeSql(text, values = []) {
    const rows = await db.$queryRawUnsafe<unknown[]>(text, ...values);
    return { rows };
  },
});

const INSERT_MESSAGES = `INSERT INTO webhook_messages (id, event_type, org_id, payload)
  SELECT t.id, t.type, $3::uuid, jsonb_build_object('type', t.type, 'timestamp', $4::text, 'data', $5::jsonb)
  FROM unnest($1::uuid[], $2::text[]) AS t(id, type)`;

export interface Emitted {
  messageId: string;
  deliveries: number;
}

/**
 * Emits a system event of `type` about `data`, for `orgId`'s endpoints and the platform's (or for
 * `only` that endpoint: a test message). Nothing is written when no endpoint wants it.
 */
export async function emitEvent(
  ctx: Pick<Context, "db" | "transaction">,
  type: string,
  orgId: string | null,
  data: Record<string, unknown>,
  only?: Subscriber,
): Promise<Emitted | undefined> {
  const addressed = addressedTo(only ? [only] : await subscribers(ctx.db), [type], orgId);
  if (addressed.length === 0) return undefined;
  const rows = outboxRows(addressed);
  await ctx.transaction(async ({ db, afterCommit }) => {
    await db.$executeRawUnsafe(
      INSERT_MESSAGES,
      rows.messageIds,
      rows.types,
      orgId,
      new Date().toISOString(),
      JSON.stringify(data),
    );
    await db.$executeRawUnsafe(insertDeliveries(), rows.deliveryMessages, rows.deliveryEndpoints);
    afterCommit(() => wake(DELIVERY_QUEUE));
    await queueDeliveries(transactionSink(db), pairs(rows));
  });
  return { messageId: rows.messageIds[0]!, deliveries: rows.deliveryEndpoints.length };
}

/** Marks `key` as emitted; false when it already was (a system event goes out once). */
export async function markOnce(db: Pick<DataLayer, "$executeRawUnsafe">, key: string): Promise<boolean> {
  const inserted = await db.$executeRawUnsafe(
    "INSERT INTO event_marks (key) VALUES ($1) ON CONFLICT (key) DO NOTHING",
    key.slice(0, 255),
  );
  return inserted === 1;
}
