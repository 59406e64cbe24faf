import "server-only";
import { isPermission } from "@/lib/permissions";
import { queryRows } from "@/server/db/client";
import { BUILT_IN_DEFAULT_RATE_LIMIT, DEFAULT_RATE_LIMIT_SETTING, rateLimitOf } from "@/server/limits/api-limits";
import { metaOf } from "@/lib/schemas/api-keys";
import type { CreditsSource } from "@/server/limits/credits";
import type { ApiKeyActor } from "./actor";
import type { Grants } from "./grants";
import { parseNetworks } from "./networks";

// Finding a presented key in the database: the key, its owner and the platform's default rate limit
// in one statement (so the limit costs no query of its own), made into a resolution: unknown,
// revoked, or an ApiKeyActor carrying the owner's grants and the key's scopes and restrictions. The
// caller supplies the owner's grants, which the cache shares among all of an owner's keys.

export type Resolution =
  | { status: "unknown" }
  | { status: "revoked"; keyId: string; userId: string; deleted: boolean }
  | { status: "active"; actor: ApiKeyActor };

interface KeyRow {
  id: string;
  user_id: string;
  key_prefix: string;
  scopes: unknown;
  rate_limit: unknown;
  default_rate_limit: unknown;
  allowed_org_ids: string[] | null;
  allowed_cidrs: string[] | null;
  expires_at: Date | null;
  usable: boolean;
  deleted: boolean;
  username: string;
  display_name: string | null;
  owner_kind: string;
  meta: unknown;
  credits_key_id: string;
  has_credits: boolean;
  refill_interval: string | null;
  refill_day: number | null;
}

// One statement, straight through the pool (queryRows): a lookup costs a third of a millisecond of
// CPU instead of Prisma's several, which matters when a burst of cached keys is refreshed at once.
// A rolled key spends its successor's credits (credits_key_id): the balance and refill are that key's.
const KEY_LOOKUP = `SELECT k.id, k.user_id, k.key_prefix, k.scopes, k.rate_limit, k.expires_at, k.allowed_org_ids, k.allowed_cidrs,
    k.is_active AND NOT k.is_deleted AND NOT u.is_deleted AS usable, k.is_deleted OR u.is_deleted AS deleted, u.username, u.display_name, u.kind AS owner_kind,
    (SELECT s.value FROM platform_settings s WHERE s.key = $2 AND NOT s.is_deleted) AS default_rate_limit,
    k.meta, c.id AS credits_key_id, c.credits_remaining IS NOT NULL AS has_credits,
    c.credits_refill_interval AS refill_interval, c.credits_refill_day AS refill_day
  FROM api_keys k JOIN users u ON u.id = k.user_id JOIN api_keys c ON c.id = COALESCE(k.credits_key_id, k.id)
  WHERE k.key_hash = $1`;

/** What a key's requests spend: undefined when it is unlimited. */
function creditsSourceOf(key: KeyRow): CreditsSource | undefined {
  if (!key.has_credits) return undefined;
  const interval = key.refill_interval;
  return {
    keyId: key.credits_key_id,
    refill: interval === "daily" || interval === "monthly" ? { interval, day: key.refill_day } : null,
  };
}

/** A key's restrictions, parsed once per resolution; an empty list restricts nothing. */
function restrictionsOf(
  key: Pick<KeyRow, "allowed_org_ids" | "allowed_cidrs">,
): Pick<ApiKeyActor["key"], "allowedOrgIds" | "allowedCidrs" | "networks"> {
  const orgs = key.allowed_org_ids ?? [];
  const cidrs = key.allowed_cidrs ?? [];
  return {
    ...(orgs.length > 0 ? { allowedOrgIds: new Set(orgs) } : {}),
    ...(cidrs.length > 0 ? { allowedCidrs: cidrs, networks: parseNetworks(cidrs) } : {}),
  };
}

/** Looks up the key of this SHA-256 hash, with its owner's grants from `grantsOf`. */
export async function resolveKey(hash: string, grantsOf: (userId: string) => Promise<Grants>): Promise<Resolution> {
  const [key] = await queryRows<KeyRow>(KEY_LOOKUP, [hash, DEFAULT_RATE_LIMIT_SETTING]);
  if (!key) return { status: "unknown" };
  if (!key.usable) return { status: "revoked", keyId: key.id, userId: key.user_id, deleted: key.deleted };
  const grants = await grantsOf(key.user_id);
  const scopes = (Array.isArray(key.scopes) ? key.scopes : [])
    .filter((s): s is string => typeof s === "string")
    .filter(isPermission);
  return {
    status: "active",
    actor: {
      kind: "api_key",
      userId: key.user_id,
      username: key.username,
      displayName: key.display_name,
      grants,
      key: {
        id: key.id,
        prefix: key.key_prefix,
        expiresAt: key.expires_at,
        scopes,
        rateLimit: rateLimitOf(key.rate_limit) ?? rateLimitOf(key.default_rate_limit) ?? BUILT_IN_DEFAULT_RATE_LIMIT,
        ...restrictionsOf(key),
        credits: creditsSourceOf(key),
        meta: metaOf(key.meta),
        ownerKind: key.owner_kind === "service" ? "service_account" : "user",
      },
    },
  };
}
