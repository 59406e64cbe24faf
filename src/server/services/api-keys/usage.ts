import "server-only";
import type { Context } from "@/server/db/context";
import { requireSelfOrSysAdmin } from "@/server/auth/authorize";
import { notFound, validationFailed } from "@/server/errors";
import type { z } from "zod";
import { type UsageOutcome, type UsageQuery, type usageSchema, USAGE_RETENTION_DAYS } from "@/lib/schemas/api-keys";
import type { KeysOf } from "./service";

const HOUR_MS = 3_600_000;

/**
 * A key's requests per hour and outcome between `from` (default: 7 days ago) and `to` (default:
 * now), oldest first; hours without requests are left out. What the last flush wrote: counts of
 * the last few seconds are still in memory. `of` names a service account whose key it must be.
 */
export async function apiKeyUsage(
  ctx: Context,
  keyId: string,
  query: UsageQuery,
  of?: KeysOf,
): Promise<z.output<typeof usageSchema>> {
  const { db } = ctx;
  const key = await db.apiKey.findFirst({
    where: { id: keyId, ...(of ? { user_id: of.userId } : {}) },
    select: { user_id: true },
  });
  if (!key) throw notFound("API key");
  if (!of) requireSelfOrSysAdmin(ctx.actor, key.user_id);
  const to = query.to ? new Date(query.to) : new Date();
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - 7 * 24 * HOUR_MS);
  if (from >= to) throw validationFailed([{ path: "query.from", message: "must be before `to`" }]);
  if (to.getTime() - from.getTime() > USAGE_RETENTION_DAYS * 24 * HOUR_MS) {
    throw validationFailed([
      { path: "query.from", message: `the range may span ${USAGE_RETENTION_DAYS} days at most` },
    ]);
  }
  const rows = await db.apiKeyUsage.findMany({
    where: { key_id: keyId, hour: { gte: new Date(from.getTime() - (from.getTime() % HOUR_MS)), lt: to } },
    orderBy: [{ hour: "asc" }, { outcome: "asc" }],
    select: { hour: true, outcome: true, count: true },
  });
  return {
    data: rows.map((r) => ({ ...r, outcome: r.outcome as UsageOutcome, count: Number(r.count) })),
  };
}
