import "server-only";
import { LRUCache } from "lru-cache";
import type { Context } from "@/server/db/context";
import { log } from "@/server/log";
import { emitEvent, markOnce } from "./events";

// api_key.expiring (7 days and again 1 day before expires_at) and api_key.expired, each once per
// key: a mark and the event are written together. A key restricted to one organization is that
// organization's too; others go to platform endpoints only. `data` names the key, never its secret.

interface KeyRow {
  id: string;
  key_prefix: string;
  user_id: string;
  name: string;
  expires_at: Date | null;
  allowed_org_ids: string[];
}

/** The key as an event names it (never its secret), and the organization the event is also for. */
function keyOfEvent(key: KeyRow) {
  return {
    orgId: key.allowed_org_ids.length === 1 ? key.allowed_org_ids[0]! : null,
    api_key: {
      id: key.id,
      key_prefix: key.key_prefix,
      user_id: key.user_id,
      name: key.name,
      expires_at: key.expires_at?.toISOString() ?? null,
    },
  };
}

const DAY_MS = 86_400_000;

export async function emitKeyExpiryEvents(ctx: Context, now = new Date()): Promise<number> {
  const keys = await ctx.queryRows<KeyRow>(
    `SELECT id, key_prefix, user_id, name, expires_at, allowed_org_ids FROM api_keys
      WHERE is_active AND NOT is_deleted AND expires_at IS NOT NULL
        AND expires_at < $1::timestamptz + interval '7 days' AND expires_at > $1::timestamptz - interval '1 day'`,
    [now],
  );
  let emitted = 0;
  for (const key of keys) {
    // Every key read has an expiry (the query asks for one).
    const left = key.expires_at!.getTime() - now.getTime();
    const [type, mark] =
      left <= 0
        ? ["api_key.expired", "expired"]
        : left <= DAY_MS
          ? ["api_key.expiring", "expiring-1d"]
          : ["api_key.expiring", "expiring-7d"];
    await ctx.transaction(async (tx) => {
      if (!(await markOnce(tx.db, `${mark}:${key.id}`))) return;
      const { orgId, api_key } = keyOfEvent(key);
      await emitEvent(tx, type, orgId, { api_key });
      emitted++;
    });
  }
  return emitted;
}

// Keys this process already reported in the current hour: a key over its limit answers 429 to
// every request, and only the first of the hour is an event (a mark in the database makes it once
// across processes).
const reported = new LRUCache<string, true>({ max: 10_000 });

/** Emits api_key.rate_limited for the key's first 429 in this clock hour (once across processes); never throws. */
export async function keyRateLimited(ctx: Context, keyId: string, now = new Date()): Promise<void> {
  const hour = now.toISOString().slice(0, 13);
  const seen = `${keyId}:${hour}`;
  if (reported.has(seen)) return;
  reported.set(seen, true);
  try {
    const [key] = await ctx.queryRows<KeyRow>(
      "SELECT id, key_prefix, user_id, name, expires_at, allowed_org_ids FROM api_keys WHERE id = $1::uuid",
      [keyId],
    );
    if (!key) return;
    await ctx.transaction(async (tx) => {
      if (!(await markOnce(tx.db, `rate_limited:${seen}`))) return;
      const { orgId, api_key } = keyOfEvent(key);
      await emitEvent(tx, "api_key.rate_limited", orgId, { api_key, hour: `${hour}:00:00Z` });
    });
  } catch (error) {
    reported.delete(seen);
    log.warn("could not emit api_key.rate_limited", { key_id: keyId, error: (error as Error).message });
  }
}

/**
 * Emits api_key.credits_low or api_key.credits_exhausted for the key's current balance, once across
 * processes (a flag on the key, cleared when the balance is refilled, set or raised); never throws.
 */
export async function keyCreditsEvent(ctx: Context, keyId: string, kind: "low" | "exhausted"): Promise<void> {
  try {
    await ctx.transaction(async (tx) => {
      // Bookkeeping: marking the event sent is not a change of the key (updated_at stays).
      const flag = kind === "low" ? "credits_low_sent" : "credits_exhausted_sent";
      const [key] = await tx.db.$queryRawUnsafe<(KeyRow & { remaining: number })[]>(
        `WITH bookkeeping AS (SELECT set_config('svc.bookkeeping', 'on', true))
         UPDATE api_keys SET ${flag} = true FROM bookkeeping
         WHERE id = $1::uuid AND NOT ${flag} AND credits_remaining IS NOT NULL
         RETURNING id, key_prefix, user_id, name, expires_at, allowed_org_ids, credits_remaining::float8 AS remaining`,
        keyId,
      );
      if (!key) return;
      const { orgId, api_key } = keyOfEvent(key);
      await emitEvent(tx, kind === "low" ? "api_key.credits_low" : "api_key.credits_exhausted", orgId, {
        api_key,
        credits: { remaining: key.remaining },
      });
    });
  } catch (error) {
    log.warn(`could not emit api_key.credits_${kind}`, { key_id: keyId, error: (error as Error).message });
  }
}
