import "server-only";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";

// Subscription tiers, lowest first, and their quotas (platform settings `tier.<name>`).

export const TIER_ORDER = ["free", "pro", "enterprise"] as const;

export type QuotaName = "max_orchestrators" | "max_central_points" | "max_members";

/** The quota of a tier, or undefined when the tier sets none (no limit). */
async function quota(
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

/**
 * The platform's own limits, whatever the tier: how many roles there are, settings each tier holds,
 * organizations one user belongs to. They keep the answers that list such things whole (a user's
 * permissions, the effective settings) bounded, as the API states.
 */
export type PlatformLimit = "roles" | "settings" | "organizations_per_user";

/**
 * Serializes additions under one platform limit (for one owner: an organization, a user) until the
 * transaction ends, then refuses when `count()` already reaches `limit`.
 */
export async function requireBelowPlatformLimit(
  db: Pick<DataLayer, "$executeRaw">,
  limit: { name: PlatformLimit; max: number; owner?: string },
  count: () => Promise<number>,
): Promise<void> {
  const lockKey = `platform-limit:${limit.name}:${limit.owner ?? ""}`;
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`;
  if ((await count()) >= limit.max)
    throw new DomainError("quota_exceeded", `The platform allows at most ${limit.max} (${limit.name}).`);
}
