import "server-only";
import { LRUCache } from "lru-cache";
import { env } from "@/server/env";
import { log } from "@/server/log";
import { baseClient } from "./client";

// Best-effort "last seen" timestamps (api_keys.last_used_at, orchestrator_instances.last_accessed_at):
// off the request path, at most one write per row per interval, batched. Each process records a row
// at most once per interval and writes what is pending in one UPDATE every flush period; the UPDATE
// skips rows written within the interval, so several processes add no extra writes. The writes run
// as bookkeeping, which leaves updated_at alone (see the svc_touch_updated_at trigger).

type Target = { table: "api_keys"; column: "last_used_at" } | { table: "orchestrator_instances"; column: "last_accessed_at" };

const MAX_TRACKED = 10_000;

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
