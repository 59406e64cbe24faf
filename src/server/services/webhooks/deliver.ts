import "server-only";
import type { Context } from "@/server/db/context";
import { env } from "@/server/env";
import { SpanKind } from "@opentelemetry/api";
import { log } from "@/server/log";
import { metrics } from "@/server/metrics";
import { currentTraceparent, inSpan } from "@/server/tracing/spans";
import { emitEvent, transactionSink } from "./events";
import { postOnce, type AttemptResult } from "./http-attempt";
import { queueDeliveries, type DeliveryJob } from "./outbox";
import { openSecret, signedHeaders, type SigningSecrets } from "./signing";

// One delivery job: claim the delivery (a lease: one process at a time, whatever pg-boss does),
// make the attempt, record it, and either queue the next attempt at its time (in the same
// transaction as the record, so it is never lost) or give up after the last.

/** After attempt n fails, the next comes this many seconds later; after the last, the delivery failed. */
const DEFAULT_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
const retrySchedule = (): number[] => env().SVC_WEBHOOK_RETRY_SCHEDULE?.split(",").map(Number) ?? DEFAULT_SCHEDULE;

/** An endpoint failing this long with nothing delivered is disabled. */
const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** How long an attempt may hold its delivery: the attempt's 10 s and then some, less than a job's expiry. */
const LEASE_SECONDS = 25;

interface Claimed {
  id: string;
  attempts: number;
  payload: string;
  event_type: string;
  org_id: string | null;
  endpoint_id: string;
  url: string;
  live: boolean;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  failing_since: Date | null;
}

// A job that comes before its delivery's time (an earlier job after a manual retry) does nothing.
const CLAIM = `UPDATE webhook_deliveries d SET leased_until = now() + make_interval(secs => ${LEASE_SECONDS})
  FROM webhook_messages m, webhook_endpoints w
  WHERE d.message_id = $1::uuid AND d.endpoint_id = $2::uuid AND m.id = d.message_id AND w.id = d.endpoint_id
    AND d.status = 'pending' AND (d.leased_until IS NULL OR d.leased_until < now())
    AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '2 seconds')
  RETURNING d.id, d.attempts, m.payload::text AS payload, m.event_type, m.org_id, m.created_at, w.id AS endpoint_id,
    w.url, (w.enabled AND NOT w.is_deleted) AS live, w.secret_encrypted, w.previous_secret_encrypted,
    w.previous_secret_expires_at, w.failing_since`;

const RECORD = `UPDATE webhook_deliveries SET status = $2::varchar, attempts = $3::int, last_status_code = $4::int,
    last_error = $5::varchar, last_response = $6::varchar, next_attempt_at = $7::timestamptz,
    delivered_at = CASE WHEN $2::varchar = 'delivered' THEN now() END, leased_until = NULL
  WHERE id = $1::uuid`;

function secretsOf(row: Claimed): SigningSecrets {
  const previous =
    row.previous_secret_encrypted && row.previous_secret_expires_at && row.previous_secret_expires_at > new Date()
      ? openSecret(row.endpoint_id, row.previous_secret_encrypted, "previous")
      : undefined;
  return { current: openSecret(row.endpoint_id, row.secret_encrypted), previous };
}

const clean = (text: string | undefined, max: number) =>
  text === undefined ? null : text.replace(/\u0000/g, "").slice(0, max);

export async function deliver(ctx: Context, job: DeliveryJob): Promise<void> {
  const [row] = await ctx.queryRows<Claimed>(CLAIM, [job.message_id, job.endpoint_id]);
  if (!row) return notClaimed(ctx, job);
  if (!row.live) {
    await ctx.queryRows(
      "UPDATE webhook_deliveries SET status = 'failed', last_error = $2, leased_until = NULL, next_attempt_at = NULL WHERE id = $1",
      [row.id, "The endpoint was disabled or deleted."],
    );
    metrics().webhookDeliveries.inc({ outcome: "dropped" });
    return;
  }
  const started = new Date();
  const result = await attempt(row, signedHeaders(secretsOf(row), job.message_id, started, row.payload));
  const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
  const attempts = row.attempts + 1;
  const schedule = retrySchedule();
  const wait = schedule[attempts - 1];
  const status = delivered ? "delivered" : wait === undefined ? "failed" : "pending";
  const error = delivered ? null : (result.error ?? `The endpoint answered ${result.status}.`);
  const next = status === "pending" ? new Date(Date.now() + wait! * 1000) : null;
  const record = [
    row.id,
    status,
    attempts,
    result.status ?? null,
    clean(error ?? undefined, 512),
    clean(result.body, 1024),
    next,
  ];
  // A delivery is one statement; a retry is recorded with its next job, in one transaction.
  if (!next) await ctx.queryRows(RECORD, record);
  else
    await ctx.transaction(async ({ db }) => {
      await db.$executeRawUnsafe(RECORD, ...record);
      await queueDeliveries(transactionSink(db), [job], next);
    });
  metrics().webhookDeliveries.inc({ outcome: delivered ? "delivered" : status === "failed" ? "failed" : "retried" });
  if (delivered) metrics().webhookLag.observe((Date.now() - row.created_at.getTime()) / 1000);
  await endpointHealth(ctx, row, delivered);
}

/** The attempt in a client span; the request carries its `traceparent`, so the receiver can join the trace. */
function attempt(row: Claimed, headers: Record<string, string>): Promise<AttemptResult> {
  const attributes = {
    "svc.webhook.endpoint_id": row.endpoint_id,
    "svc.webhook.delivery_id": row.id,
    "svc.webhook.event_type": row.event_type,
    "svc.webhook.attempt": row.attempts + 1,
  };
  return inSpan(
    "webhook attempt",
    attributes,
    async (span) => {
      const traceparent = currentTraceparent();
      const result = await postOnce(
        row.url,
        traceparent ? { ...headers, traceparent } : headers,
        row.payload,
        env().SVC_ALLOW_HTTP_LOOPBACK === "1",
      );
      span?.setAttributes(
        result.status === undefined ? { "error.type": "no_answer" } : { "http.response.status_code": result.status },
      );
      return result;
    },
    SpanKind.CLIENT,
  );
}

class DeliveryBusy extends Error {
  constructor() {
    super("the delivery is being attempted by another process; this job runs again shortly");
    this.name = "DeliveryBusy";
  }
}

/**
 * A job that found its delivery leased (an attempt in flight elsewhere: a retry asked for meanwhile)
 * fails, so pg-boss runs it again a second later; one whose delivery is done, or not due yet (its
 * own job is queued for then), ends here.
 */
async function notClaimed(ctx: Context, job: DeliveryJob): Promise<void> {
  const [state] = await ctx.queryRows<{ busy: boolean }>(
    `SELECT (status = 'pending' AND leased_until >= now()) AS busy FROM webhook_deliveries
      WHERE message_id = $1::uuid AND endpoint_id = $2::uuid`,
    [job.message_id, job.endpoint_id],
  );
  if (state?.busy) throw new DeliveryBusy();
}

/** Clears an endpoint's failing mark on a delivery; disables it after 5 days of failing. */
async function endpointHealth(ctx: Context, row: Claimed, delivered: boolean): Promise<void> {
  if (delivered) {
    if (row.failing_since === null) return;
    await ctx.queryRows(
      "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL",
      [row.endpoint_id],
    );
    return;
  }
  await ctx.queryRows("UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1 AND failing_since IS NULL", [
    row.endpoint_id,
  ]);
  const [disabled] = await ctx.queryRows<{ id: string; org_id: string | null; url: string }>(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2
       WHERE id = $1 AND enabled AND failing_since < now() - make_interval(secs => $3)
       RETURNING id, org_id, url`,
    [row.endpoint_id, "Nothing was delivered for 5 days while attempts failed.", DISABLE_AFTER_MS / 1000],
  );
  if (!disabled) return;
  log.warn("a webhook endpoint was disabled after 5 days of failures", { endpoint_id: disabled.id });
  await emitEvent(ctx, "webhook_endpoint.disabled", disabled.org_id, {
    webhook_endpoint: { id: disabled.id, org_id: disabled.org_id, url: disabled.url },
  });
}
