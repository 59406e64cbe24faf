import "server-only";
import type { Context } from "@/server/db/context";
import { QUEUE_SCHEMA } from "@/server/jobs/queue";
import { DELIVERY_QUEUE, queueDeliveries, type DeliveryJob } from "./outbox";
import { transactionSink } from "./events";

// The delivery queue's safety net and retention: a delivery pending over 15 seconds with no live job
// in pg-boss's table (queued by the CLI, which runs no queue, or lost with a process that died after
// the commit) is queued again; deliveries and messages go after 30 days. See
// docs/decisions/031-webhook-outbox.md for why it looks for the job rather than at age alone.

export const DELIVERY_RETENTION_DAYS = 30;
/** A delivery due this long with no job is taken to have lost it: far past the relay's milliseconds. */
export const ORPHAN_AFTER_SECONDS = 15;
const SWEEP_BATCH = 1_000;

export async function webhookUpkeep(ctx: Context): Promise<{ requeued: number; removed: number }> {
  const stuck = await ctx.queryRows<DeliveryJob>(
    `UPDATE webhook_deliveries SET next_attempt_at = now()
      WHERE id IN (SELECT d.id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND (d.leased_until IS NULL OR d.leased_until < now())
          AND COALESCE(d.next_attempt_at, d.created_at) < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM ${QUEUE_SCHEMA}.job j
            WHERE j.name = $2 AND j.state < 'completed'
              AND j.data->>'message_id' = d.message_id::text AND j.data->>'endpoint_id' = d.endpoint_id::text)
        LIMIT ${SWEEP_BATCH})
      RETURNING message_id, endpoint_id`,
    [ORPHAN_AFTER_SECONDS, DELIVERY_QUEUE],
  );
  if (stuck.length > 0) await ctx.transaction(({ db }) => queueDeliveries(transactionSink(db), stuck));
  const removed = await ctx.queryRows<{ n: number }>(
    `WITH gone AS (DELETE FROM webhook_messages WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [DELIVERY_RETENTION_DAYS],
  );
  return { requeued: stuck.length, removed: removed[0]?.n ?? 0 };
}
