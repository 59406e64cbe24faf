import "server-only";
import { queryRows } from "@/server/db/client";
import { queueDeliveries, type DeliveryJob } from "./outbox";
import { transactionSink } from "./events";
import { inOneTransaction } from "@/server/db/unit-of-work";

// The delivery queue's safety net and retention: a pending delivery whose time passed over two
// minutes ago without an attempt lost its job (written by the CLI, which runs no queue, or a job
// lost with a failed write) and is queued again; deliveries and messages go after 30 days.

export const DELIVERY_RETENTION_DAYS = 30;
const SWEEP_BATCH = 1_000;

export async function webhookUpkeep(): Promise<{ requeued: number; removed: number }> {
  const stuck = await queryRows<DeliveryJob>(
    `UPDATE webhook_deliveries SET next_attempt_at = now()
      WHERE id IN (SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND (leased_until IS NULL OR leased_until < now())
          AND COALESCE(next_attempt_at, created_at) < now() - interval '2 minutes'
        LIMIT ${SWEEP_BATCH})
      RETURNING message_id, endpoint_id`,
    [],
  );
  if (stuck.length > 0) await inOneTransaction(() => queueDeliveries(transactionSink(), stuck));
  const removed = await queryRows<{ n: number }>(
    `WITH gone AS (DELETE FROM webhook_messages WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [DELIVERY_RETENTION_DAYS],
  );
  return { requeued: stuck.length, removed: removed[0]?.n ?? 0 };
}
