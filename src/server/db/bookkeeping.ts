import "server-only";
import { LRUCache } from "lru-cache";
import { env } from "@/server/env";
import { onShutdown } from "@/server/lifecycle";
import { processState } from "@/server/process-state";
import { log } from "@/server/log";
import { API_KEYS_IN_MEMORY } from "@/server/keys-in-memory";
import { USAGE_RETENTION_DAYS, type UsageOutcome } from "@/lib/schemas/api-keys";
import { baseClient } from "./client";

// Best-effort "last seen" timestamps (api_keys.last_used_at, orchestrator_instances.last_accessed_at,
// scim_tokens.last_used_at):
// off the request path, at most one write per row per interval, batched. Each process records a row
// at most once per interval and writes what is pending in one UPDATE every flush period; the UPDATE
// skips rows written within the interval, so several processes add no extra writes. The writes run
// as bookkeeping, which leaves updated_at alone (see the svc_touch_updated_at trigger).

type Target =
  | { table: "api_keys" | "scim_tokens"; column: "last_used_at" }
  | { table: "orchestrator_instances"; column: "last_accessed_at" };

// Rows (keys, instances) tracked between flushes, each a few hundred bytes.
const MAX_TRACKED = API_KEYS_IN_MEMORY;

// Every instance of the process, whichever server chunk made it, for the backlog metric.
const touches = processState("touches", () => new Set<{ backlog: number }>());

/** Rows recorded by every instance and not yet written. */
export const bookkeepingBacklog = (): number => [...touches].reduce((sum, touch) => sum + touch.backlog, 0);

export class CoalescedTouch {
  /** Rows recorded within the interval: the next record of one of them waits for the interval to pass. */
  private readonly recorded: LRUCache<string, true>;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: Target,
    private readonly intervalMs = 60_000,
    /** Defaults to SVC_BOOKKEEPING_FLUSH_MS, read when first needed (not at import). */
    private readonly flushMs?: number,
  ) {
    this.recorded = new LRUCache({ max: MAX_TRACKED, ttl: intervalMs });
    onShutdown("flush", () => this.flush());
    touches.add(this);
  }

  /** Rows recorded and not yet written. */
  get backlog(): number {
    return this.pending.size;
  }

  record(id: string): void {
    if (this.recorded.has(id)) return;
    this.recorded.set(id, true);
    this.pending.add(id);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs ?? env().SVC_BOOKKEEPING_FLUSH_MS).unref();
  }

  /** Writes what is pending now; returns the number of rows written. */
  async flush(): Promise<number> {
    this.timer = undefined;
    if (this.pending.size === 0) return 0;
    const ids = [...this.pending];
    this.pending.clear();
    const { table, column } = this.target;
    try {
      // One statement, so no transaction to hold open: the CTE marks it as bookkeeping (set_config
      // with is_local, lasting for this statement's own transaction) before any row is updated.
      const written = await baseClient().$executeRawUnsafe(
        `WITH bookkeeping AS (SELECT set_config('svc.bookkeeping', 'on', true))
         UPDATE ${table} SET ${column} = now() FROM bookkeeping
         WHERE id = ANY($1::uuid[]) AND (${column} IS NULL OR ${column} < now() - make_interval(secs => $2))`,
        ids,
        this.intervalMs / 1000,
      );
      return written;
    } catch (error) {
      log.warn(`could not record ${column}`, { error: (error as Error).message });
      return 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// API key usage: requests per key, hour and outcome, plus the last client address and user agent.
// Counted in memory on the request path (a few map operations); every flush period one statement
// adds each key's counts to its hourly buckets (added, so several processes sum up) and records
// its latest address and user agent where they changed: at most one write per key per flush. The
// same statement adds the counts to the platform's totals per hour and outcome.

const HOUR_MS = 3_600_000;

/** The outcome a response status counts as. */
function outcomeOf(status: number): UsageOutcome {
  if (status < 400) return "2xx";
  if (status === 401 || status === 403 || status === 429) return String(status) as UsageOutcome;
  return status < 500 ? "4xx" : "5xx";
}

interface KeyTally {
  /** Counts by hour (its number since the epoch: a small integer, cheap to key by), then outcome. */
  counts: Map<number, Map<UsageOutcome, number>>;
  address: string;
  userAgent: string | null;
}

export class KeyUsage {
  private tallies = new Map<string, KeyTally>();
  private timer: NodeJS.Timeout | undefined;
  private prunedAt = 0;

  constructor(private readonly flushMs?: number) {
    onShutdown("flush", () => this.flush());
    touches.add(this);
  }

  get backlog(): number {
    return this.tallies.size;
  }

  record(keyId: string, status: number, address: string, userAgent: string | null, now = Date.now()): void {
    let tally = this.tallies.get(keyId);
    if (!tally) {
      // A burst of distinct keys beyond what one flush should carry waits for the next request.
      if (this.tallies.size >= MAX_TRACKED) return;
      tally = { counts: new Map(), address, userAgent };
      this.tallies.set(keyId, tally);
    }
    // A request's header values are new strings each time: the tally keeps the ones it has while
    // they are equal, so it does not carry a fresh copy per request into the old generation.
    if (tally.address !== address) tally.address = address;
    if (tally.userAgent !== userAgent) tally.userAgent = userAgent;
    const hour = Math.floor(now / HOUR_MS);
    let outcomes = tally.counts.get(hour);
    if (!outcomes) tally.counts.set(hour, (outcomes = new Map()));
    const outcome = outcomeOf(status);
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs ?? env().SVC_BOOKKEEPING_FLUSH_MS).unref();
  }

  /** Writes what is counted so far; returns the number of keys written. */
  async flush(): Promise<number> {
    this.timer = undefined;
    const tallies = this.tallies;
    if (tallies.size === 0) return 0;
    this.tallies = new Map();
    const buckets: { keys: string[]; hours: Date[]; outcomes: string[]; counts: number[] } = {
      keys: [],
      hours: [],
      outcomes: [],
      counts: [],
    };
    const seen: { keys: string[]; addresses: string[]; agents: (string | null)[] } = {
      keys: [],
      addresses: [],
      agents: [],
    };
    for (const [keyId, tally] of tallies) {
      for (const [hour, outcomes] of tally.counts) {
        for (const [outcome, count] of outcomes) {
          buckets.keys.push(keyId);
          buckets.hours.push(new Date(hour * HOUR_MS));
          buckets.outcomes.push(outcome);
          buckets.counts.push(count);
        }
      }
      seen.keys.push(keyId);
      seen.addresses.push(tally.address.slice(0, 64));
      seen.agents.push(tally.userAgent);
    }
    try {
      // Keys deleted meanwhile are skipped (their buckets would have nothing to belong to).
      await baseClient().$executeRawUnsafe(
        `WITH bookkeeping AS (SELECT set_config('svc.bookkeeping', 'on', true)),
         counted AS (
           INSERT INTO api_key_usage (key_id, hour, outcome, count)
           SELECT b.key_id, b.hour, b.outcome, b.count
           FROM unnest($1::uuid[], $2::timestamptz[], $3::varchar[], $4::bigint[]) AS b(key_id, hour, outcome, count)
           WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = b.key_id)
           ON CONFLICT (key_id, hour, outcome) DO UPDATE SET count = api_key_usage.count + EXCLUDED.count
         ),
         totals AS (
           INSERT INTO api_key_usage_totals (hour, outcome, count)
           SELECT b.hour, b.outcome, sum(b.count)
           FROM unnest($2::timestamptz[], $3::varchar[], $4::bigint[]) AS b(hour, outcome, count)
           GROUP BY 1, 2
           ON CONFLICT (hour, outcome) DO UPDATE SET count = api_key_usage_totals.count + EXCLUDED.count
         )
         UPDATE api_keys k SET last_used_ip = s.address, last_user_agent = s.agent
         FROM unnest($5::uuid[], $6::varchar[], $7::varchar[]) AS s(id, address, agent), bookkeeping
         WHERE k.id = s.id AND (k.last_used_ip IS DISTINCT FROM s.address OR k.last_user_agent IS DISTINCT FROM s.agent)`,
        buckets.keys,
        buckets.hours,
        buckets.outcomes,
        buckets.counts,
        seen.keys,
        seen.addresses,
        seen.agents,
      );
      if (Date.now() - this.prunedAt >= HOUR_MS) await this.prune();
      return tallies.size;
    } catch (error) {
      log.warn("could not record API key usage", { error: (error as Error).message });
      return 0;
    }
  }

  /** Deletes buckets past the retention (flushes do, at most once an hour per process). */
  async prune(): Promise<void> {
    this.prunedAt = Date.now();
    await baseClient().$executeRawUnsafe(
      `WITH totals AS (DELETE FROM api_key_usage_totals WHERE hour < now() - make_interval(days => $1))
       DELETE FROM api_key_usage WHERE hour < now() - make_interval(days => $1)`,
      USAGE_RETENTION_DAYS,
    );
  }
}
