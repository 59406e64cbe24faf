import "server-only";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";

// Subscription tiers, lowest first, and their quotas (platform settings `tier.<name>`).

export const TIER_ORDER = ["free", "pro", "enterprise"] as const;

export type QuotaName = "max_orchestrators" | "max_central_points" | "max_members";

/** The quota of a tier, or undefined when the tier sets none (no limit). */
export async function quota(
  db: Pick<DataLayer, "platformSetting">,
  tier: string,
  name: QuotaName,
): Promise<number | undefined> {
  const setting = await db.platformSetting.findUnique({ where: { key: `tier.${tier}` } });
  const value = (setting?.value as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Refuses when `count` already reaches the tier's quota. */
export async function requireWithinQuota(
  db: Pick<DataLayer, "platformSetting">,
  tier: string,
  name: QuotaName,
  count: number,
) {
  const limit = await quota(db, tier, name);
  if (limit !== undefined && count >= limit) {
    throw new DomainError("quota_exceeded", `The ${tier} tier allows ${limit} (${name}).`);
  }
}

export function requireTierAtLeast(tier: string, minimum: (typeof TIER_ORDER)[number], what: string) {
  const rank = TIER_ORDER.indexOf(tier as (typeof TIER_ORDER)[number]);
  if (rank < TIER_ORDER.indexOf(minimum)) {
    throw new DomainError(
      "tier_required",
      `${what} need the ${minimum} tier or higher; this organization is on ${tier}.`,
    );
  }
}

/** Serializes quota checks of one organization: holds its row lock until the transaction ends. */
export async function lockOrganization(db: Pick<DataLayer, "$queryRaw">, orgId: string): Promise<void> {
  await db.$queryRaw`SELECT id FROM organizations WHERE id = ${orgId}::uuid FOR UPDATE`;
}
