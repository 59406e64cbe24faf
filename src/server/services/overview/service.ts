import "server-only";
import type { Context } from "@/server/db/context";
import { EXPIRING_SOON_DAYS, type UsageOutcome } from "@/lib/schemas/api-keys";
import type { z } from "zod";
import type { overviewSchema } from "@/lib/schemas/overview";
import { latestAuditEvents } from "@/server/services/audit/read";

// The platform at a glance, for the console's landing page: one statement per figure (the two key
// counts share one), all sent at once, each answered from an index so the page stays fast however
// many keys and events there are (which index serves which figure: docs/benchmarks.md, Console
// overview).

const WEEK_HOURS = 7 * 24;
const MOST_REFUSED = 10;
const LATEST_EVENTS = 8;
const HOUR_MS = 3_600_000;

export async function overview(ctx: Context): Promise<z.output<typeof overviewSchema>> {
  const { db } = ctx;
  const now = Date.now();
  const since = new Date(now - (now % HOUR_MS) - (WEEK_HOURS - 1) * HOUR_MS);
  const [tiers, users, keys, hours, refused, events] = await Promise.all([
    db.$queryRaw<{ tier: string; count: bigint }[]>`
      SELECT subscription_tier AS tier, count(*) AS count FROM organizations WHERE NOT is_deleted GROUP BY 1 ORDER BY 1`,
    db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM users WHERE NOT is_deleted`,
    db.$queryRaw<{ active: bigint; expiring: bigint }[]>`
      SELECT count(*) AS active,
             count(*) FILTER (WHERE expires_at <= now() + make_interval(days => ${EXPIRING_SOON_DAYS})) AS expiring
      FROM api_keys WHERE is_active AND NOT is_deleted AND (expires_at IS NULL OR expires_at > now())`,
    db.$queryRaw<{ hour: Date; outcome: UsageOutcome; count: bigint }[]>`
      SELECT hour, outcome, count FROM api_key_usage_totals WHERE hour >= ${since} ORDER BY 1, 2`,
    db.$queryRaw<
      { id: string; name: string; key_prefix: string; user_id: string; username: string; refused: bigint }[]
    >`
      SELECT k.id, k.name, k.key_prefix, k.user_id, u.username, r.refused
      FROM (SELECT key_id, sum(count) AS refused FROM api_key_usage
            WHERE hour >= ${since} AND outcome IN ('401', '403', '429') GROUP BY key_id ORDER BY refused DESC, key_id LIMIT ${MOST_REFUSED}) r
      JOIN api_keys k ON k.id = r.key_id JOIN users u ON u.id = k.user_id
      ORDER BY r.refused DESC, k.id`,
    latestAuditEvents(ctx, LATEST_EVENTS),
  ]);
  return {
    organizations_by_tier: tiers.map((t) => ({ tier: t.tier, count: Number(t.count) })),
    users: Number(users[0]?.count ?? 0),
    active_keys: Number(keys[0]?.active ?? 0),
    keys_expiring_this_week: Number(keys[0]?.expiring ?? 0),
    requests_per_hour: hours.map((h) => ({ ...h, count: Number(h.count) })),
    most_refused_keys: refused.map((k) => ({ ...k, refused: Number(k.refused) })),
    latest_events: events,
  };
}
