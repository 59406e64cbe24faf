import "server-only";
import { DomainError, validationFailed } from "@/server/errors";
import { isSysAdmin } from "@/server/auth/authorize";
import type { Actor } from "@/server/auth/actor";
import {
  atLeastAsStrict,
  combinePolicy,
  fasterThan,
  policyValue,
  KEY_POLICY,
  KEY_POLICY_SETTINGS,
  type KeyPolicy,
  type KeyPolicySetting,
} from "@/lib/key-policies";
import { DAY_MS, type Db } from "./rows";

// Key policies (settings api_keys.*): the platform's, tightened for a service account's keys by its
// organization's own values, and enforced whenever a key is issued, rolled or changed.

const POLICY_KEYS = KEY_POLICY_SETTINGS.map((s) => s.key);

type Settings = Pick<Db, "platformSetting" | "organizationSetting" | "user" | "userOrgMembership">;

const valuesOf = (rows: { key: string; value: unknown }[]): Partial<Record<KeyPolicySetting, unknown>> =>
  Object.fromEntries(rows.map((r) => [r.key, r.value]));

/** The platform's policy, for every key. */
export async function platformKeyPolicy(db: Pick<Db, "platformSetting">): Promise<KeyPolicy> {
  const rows = await db.platformSetting.findMany({
    where: { key: { in: POLICY_KEYS } },
    select: { key: true, value: true },
  });
  return combinePolicy(valuesOf(rows));
}

/** The organization's own policy values (its tier of settings), by organization. */
export async function orgPolicyValues(
  db: Pick<Db, "organizationSetting">,
  orgIds?: readonly string[],
): Promise<Map<string, Partial<Record<KeyPolicySetting, unknown>>>> {
  const rows = await db.organizationSetting.findMany({
    where: { key: { in: POLICY_KEYS }, ...(orgIds ? { org_id: { in: [...orgIds] } } : {}) },
    select: { org_id: true, key: true, value: true },
  });
  const byOrg = new Map<string, Partial<Record<KeyPolicySetting, unknown>>>();
  for (const row of rows) byOrg.set(row.org_id, { ...byOrg.get(row.org_id), [row.key]: row.value });
  return byOrg;
}

/**
 * The policy a user's keys follow: the platform's; for a service account, made stricter by its
 * organization's values.
 */
export async function keyPolicyFor(db: Settings, ownerId: string): Promise<KeyPolicy> {
  const [platform, owner] = await Promise.all([
    db.platformSetting.findMany({ where: { key: { in: POLICY_KEYS } }, select: { key: true, value: true } }),
    db.user.findUnique({ where: { id: ownerId }, select: { kind: true } }),
  ]);
  if (owner?.kind !== "service") return combinePolicy(valuesOf(platform));
  const memberships = await db.userOrgMembership.findMany({ where: { user_id: ownerId }, select: { org_id: true } });
  const orgs = await orgPolicyValues(
    db,
    memberships.map((m) => m.org_id),
  );
  return combinePolicy(valuesOf(platform), ...orgs.values());
}

const violation = (setting: KeyPolicySetting, message: string) =>
  new DomainError("policy_violation", message, { setting });

/** The key's expiry, as it will be from `now` on, must be one the policy allows. */
export function requireExpiryAllowed(policy: KeyPolicy, expiresAt: Date | null, now: number): void {
  if (expiresAt === null) {
    if (policy.require_expiry) throw violation(KEY_POLICY.requireExpiry, "Keys must have an expiry (expires_at).");
    if (policy.max_lifetime_days !== null)
      throw violation(
        KEY_POLICY.maxLifetimeDays,
        `Keys must expire within ${policy.max_lifetime_days} days; this one never would.`,
      );
    return;
  }
  if (policy.max_lifetime_days !== null && expiresAt.getTime() > now + policy.max_lifetime_days * DAY_MS) {
    throw violation(KEY_POLICY.maxLifetimeDays, `Keys must expire within ${policy.max_lifetime_days} days.`);
  }
}

/**
 * The key's rate limit, as it will be, must be within `api_keys.max_rate_limit` (compared per
 * second), unless the actor is a sys_admin. Null (the platform's default) always is.
 */
export function requireRateLimitAllowed(
  actor: Actor,
  policy: KeyPolicy,
  rateLimit: { requests: number; window_seconds: number } | null | undefined,
): void {
  if (!rateLimit || !fasterThan(rateLimit, policy.max_rate_limit) || isSysAdmin(actor)) return;
  const max = policy.max_rate_limit;
  throw violation(
    KEY_POLICY.maxRateLimit,
    `A key's rate limit may be at most ${max.requests} requests per ${max.window_seconds} s; only a sys_admin goes above it.`,
  );
}

/**
 * Room for one more active key of the owner (within `api_keys.max_per_user`), the key being
 * replaced (a roll) not counted. Holds a lock on the owner's count until the transaction ends, so
 * that concurrent creations cannot each take the last place.
 */
export async function requireRoomForKey(
  tx: Pick<Db, "$executeRaw" | "apiKey">,
  policy: KeyPolicy,
  ownerId: string,
  replacing?: string,
): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`api-keys-per-user:${ownerId}`}, 0))`;
  const active = await tx.apiKey.count({
    where: {
      user_id: ownerId,
      is_active: true,
      OR: [{ expires_at: null }, { expires_at: { gt: new Date() } }],
      ...(replacing ? { id: { not: replacing } } : {}),
    },
  });
  if (active >= policy.max_per_user)
    throw violation(
      KEY_POLICY.maxPerUser,
      `The owner already holds ${active} active keys, the most the policy allows (${policy.max_per_user}).`,
    );
}

/** A value a key policy setting can take: of its type (400 otherwise). */
export function requireKeyPolicyValue(key: KeyPolicySetting, value: unknown): void {
  if (policyValue(key, value) !== undefined) return;
  const spec = KEY_POLICY_SETTINGS.find((s) => s.key === key);
  const type =
    spec?.valueType === "boolean"
      ? "a boolean"
      : spec?.valueType === "rate_limit"
        ? 'a rate limit {"requests", "window_seconds"} (positive integers, a window of a day at most)'
        : "a positive integer";
  throw validationFailed([{ path: "value", message: `must be ${type}${spec?.nullable ? " or null" : ""}` }]);
}

/**
 * A key policy an organization sets for its service accounts' keys: of the setting's type, and never
 * looser than the platform's value (422 `policy_violation` naming the setting). Whether the platform
 * marks it overridable does not matter: a stricter value is always allowed.
 */
export async function requireStricterOrgPolicy(
  db: Pick<Db, "platformSetting">,
  key: KeyPolicySetting,
  value: unknown,
): Promise<void> {
  requireKeyPolicyValue(key, value);
  const platform = await platformKeyPolicy(db);
  const field = KEY_POLICY_SETTINGS.find((s) => s.key === key)?.field;
  if (field && !atLeastAsStrict(key, value, platform[field])) {
    throw violation(
      key,
      `An organization may only make ${key} stricter than the platform's value (${JSON.stringify(platform[field])}).`,
    );
  }
}
