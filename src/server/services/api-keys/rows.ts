import "server-only";
import type { dataLayer } from "@/server/db/data-layer";
import { sanitizeScopes } from "@/server/auth/escalation";
import { CHANNEL, notifyPayload } from "@/server/auth/invalidation";
import { isCidr } from "@/server/auth/networks";
import { validationFailed } from "@/server/errors";
import { isPermission } from "@/lib/permissions";
import { rateLimitOf } from "@/server/limits/api-limits";
import type { z } from "zod";
import type { apiKeySchema, createdApiKeySchema } from "@/lib/schemas/api-keys";
import { metaOf } from "@/lib/schemas/api-keys";
import { CREDIT_FIELDS, creditsOf, type CreditColumns } from "./credits";

// What the API key services share: the columns a key is answered with, its two answers (a key, and
// a key just issued with its raw value), the check of its restrictions and the announcement of a
// change to every process.

export type Db = ReturnType<typeof dataLayer>;

/** A key, and a key just issued, as services answer them (moments are Dates). */
export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;

export const DAY_MS = 86_400_000;

export const PUBLIC_FIELDS = {
  id: true,
  user_id: true,
  name: true,
  key_prefix: true,
  scopes: true,
  rate_limit: true,
  allowed_org_ids: true,
  allowed_cidrs: true,
  expires_at: true,
  last_used_at: true,
  last_used_ip: true,
  last_user_agent: true,
  is_active: true,
  created_at: true,
  updated_at: true,
  ...CREDIT_FIELDS,
  meta: true,
  // A rolled key spends its successor's credits, and shows them.
  credits_key: { select: CREDIT_FIELDS },
} as const;

export interface KeyRow extends CreditColumns {
  meta: unknown;
  credits_key: CreditColumns | null;
  id: string;
  user_id: string;
  name: string;
  key_prefix: string;
  scopes: unknown;
  rate_limit: unknown;
  allowed_org_ids: string[];
  allowed_cidrs: string[];
  expires_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
  last_user_agent: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

// Stored as lists, where an empty one restricts nothing; answered as null then.
const listOrNull = (values: string[]): string[] | null => (values.length > 0 ? values : null);

export const scopesOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((s) => typeof s === "string") : [];

// A mapper: scopes and the rate limit are JSON columns, and an empty restriction list is null.
export function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: scopesOf(row.scopes),
    rate_limit: rateLimitOf(row.rate_limit) ?? null,
    allowed_org_ids: listOrNull(row.allowed_org_ids),
    allowed_cidrs: listOrNull(row.allowed_cidrs),
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    last_used_ip: row.last_used_ip,
    last_user_agent: row.last_user_agent,
    is_active: row.is_active,
    credits: creditsOf(row.credits_key ?? row),
    meta: metaOf(row.meta),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

// A mapper: a key just issued carries its raw value, and its scopes with and without the dangerous ones.
export function toCreated(row: KeyRow, raw: string): CreatedApiKey {
  // Stored scopes were checked when the key was issued; what the catalog no longer knows is dropped.
  const scopes = scopesOf(row.scopes).filter(isPermission);
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes,
    effective_scopes: sanitizeScopes(scopes),
    rate_limit: rateLimitOf(row.rate_limit) ?? null,
    allowed_org_ids: listOrNull(row.allowed_org_ids),
    allowed_cidrs: listOrNull(row.allowed_cidrs),
    expires_at: row.expires_at,
    is_active: row.is_active,
    credits: creditsOf(row.credits_key ?? row),
    meta: metaOf(row.meta),
    created_at: row.created_at,
    raw_key: raw,
  };
}

export type Restrictions = { allowed_org_ids?: string[] | null; allowed_cidrs?: string[] | null };

/**
 * Restrictions as stored (an empty list for none), after checking them: each organization one the
 * owner belongs to, each CIDR one the key stage reads. Absent fields stay absent (left unchanged).
 */
export async function checkedRestrictions(
  db: Pick<Db, "userOrgMembership">,
  ownerId: string,
  input: Restrictions,
): Promise<{ allowed_org_ids?: string[]; allowed_cidrs?: string[] }> {
  const out: { allowed_org_ids?: string[]; allowed_cidrs?: string[] } = {};
  if (input.allowed_org_ids !== undefined) {
    const orgIds = input.allowed_org_ids ?? [];
    const memberships = await db.userOrgMembership.findMany({
      where: { user_id: ownerId, org_id: { in: orgIds } },
      select: { org_id: true },
    });
    const member = new Set(memberships.map((m) => m.org_id));
    const outside = orgIds.map((id, i) => ({ id, i })).filter(({ id }) => !member.has(id));
    if (outside.length > 0) {
      throw validationFailed(
        outside.map(({ i }) => ({
          path: `allowed_org_ids.${i}`,
          message: "is not an organization the key's owner belongs to",
        })),
      );
    }
    out.allowed_org_ids = orgIds;
  }
  if (input.allowed_cidrs !== undefined) {
    const cidrs = input.allowed_cidrs ?? [];
    const bad = cidrs.map((c, i) => ({ c, i })).filter(({ c }) => !isCidr(c));
    if (bad.length > 0)
      throw validationFailed(
        bad.map(({ i }) => ({ path: `allowed_cidrs.${i}`, message: "must be an IPv4 or IPv6 CIDR" })),
      );
    out.allowed_cidrs = cidrs;
  }
  return out;
}

/** Tells every other process, on commit, to drop its cached resolution of the key. */
export const announceChange = (tx: Pick<Db, "$executeRaw">, keyId: string) =>
  tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${notifyPayload({ keyId })})`;
