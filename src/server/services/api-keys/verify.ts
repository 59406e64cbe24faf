import "server-only";
import { isPermission } from "@/lib/permissions";
import { metaOf, type VerifiedApiKey, type VerifyApiKeyInput, type VerifyCode } from "@/lib/schemas/api-keys";
import type { ApiKeyActor } from "@/server/auth/actor";
import { resolvePresentedKey } from "@/server/auth/api-key-stage";
import { recordKeyUsage, recordLastUsed } from "@/server/auth/api-key-usage";
import { holds, keyActsIn, keyOrganizations, keyPermissions } from "@/server/auth/authorize";
import { addressAllowed } from "@/server/auth/networks";
import type { Context } from "@/server/db/context";
import { keyLimitState, spendKeyCredits } from "@/server/limits/api-limits";
import { consumeCredits } from "@/server/limits/credits";

// Verifying a key a caller presented to one of the platform's own services (an orchestrator
// runtime): the same stages a request made with the key passes — the key itself, its networks, its
// rate limit, the organization and permissions, its credits — answered as a code instead of a
// refusal. A verification counts in the key's rate limit and usage and spends `cost` of its credits
// as a request would; cost 0 only looks. Nothing is said of a key that does not exist.

/** The status a request refused at this stage would have had: what the key's usage counts. */
const STATUS: Record<VerifyCode, number> = {
  VALID: 200,
  NOT_FOUND: 401,
  REVOKED: 401,
  EXPIRED: 401,
  IP_NOT_ALLOWED: 403,
  ORG_NOT_ALLOWED: 403,
  INSUFFICIENT_PERMISSIONS: 403,
  RATE_LIMITED: 429,
  CREDITS_EXHAUSTED: 429,
};

type Details = Omit<VerifiedApiKey, "valid" | "code">;

function detailsOf(actor: ApiKeyActor, orgId: string | undefined): Details {
  const { key } = actor;
  return {
    key_id: key.id,
    key_prefix: key.prefix,
    owner: { user_id: actor.userId, kind: key.ownerKind, username: actor.username },
    org_ids: keyOrganizations(actor),
    permissions: keyPermissions(actor, orgId),
    expires_at: key.expiresAt,
    credits: null,
    ratelimit: null,
    meta: key.meta,
  };
}

/**
 * A revoked key's details, read on this rare path (the cache keeps only that it is revoked);
 * undefined when it was deleted since (it is then not found, like any deleted key).
 */
async function revokedKey(ctx: Context, keyId: string): Promise<Details | undefined> {
  const key = await ctx.db.apiKey.findFirst({
    where: { id: keyId, is_deleted: false, user: { is_deleted: false } },
    select: {
      id: true,
      key_prefix: true,
      expires_at: true,
      meta: true,
      user: { select: { id: true, username: true, kind: true } },
    },
  });
  if (!key) return undefined;
  return {
    key_id: key.id,
    key_prefix: key.key_prefix,
    owner: {
      user_id: key.user.id,
      kind: key.user.kind === "service" ? "service_account" : "user",
      username: key.user.username,
    },
    org_ids: [],
    permissions: [],
    expires_at: key.expires_at,
    credits: null,
    ratelimit: null,
    meta: metaOf(key.meta),
  };
}

export async function verifyApiKey(ctx: Context, input: VerifyApiKeyInput): Promise<VerifiedApiKey> {
  const resolution = await resolvePresentedKey(input.key);
  if (resolution.status === "unknown" || (resolution.status === "revoked" && resolution.deleted))
    return { valid: false, code: "NOT_FOUND" };
  const counting = input.cost > 0;
  const address = input.client_ip ?? "unknown";
  if (resolution.status === "revoked") {
    const details = await revokedKey(ctx, resolution.keyId);
    if (!details) return { valid: false, code: "NOT_FOUND" };
    if (counting) recordKeyUsage(resolution.keyId, STATUS.REVOKED, address, null);
    return { valid: false, code: "REVOKED", ...details };
  }
  const { actor } = resolution;
  const { key } = actor;
  const details = detailsOf(actor, input.org_id);
  const credits = key.credits;
  const answer = async (code: VerifyCode): Promise<VerifiedApiKey> => {
    if (counting) recordKeyUsage(key.id, STATUS[code], address, null);
    // Refused before its credits were reached: where they stand, nothing spent.
    if (credits && code !== "VALID" && code !== "CREDITS_EXHAUSTED")
      details.credits = { remaining: (await consumeCredits(credits, 0)).remaining };
    return { valid: code === "VALID", code, ...details };
  };

  if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) return answer("EXPIRED");
  if (key.networks && !(input.client_ip && addressAllowed(key.networks, input.client_ip)))
    return answer("IP_NOT_ALLOWED");
  const limit = await keyLimitState(key.id, key.rateLimit, counting);
  details.ratelimit = {
    limit: limit.limit,
    remaining: limit.remaining,
    reset: new Date(Date.now() + limit.resetMs),
  };
  if (!limit.allowed) return answer("RATE_LIMITED");
  if (input.org_id !== undefined && !keyActsIn(actor, input.org_id)) return answer("ORG_NOT_ALLOWED");
  const permissions = (input.permissions ?? []).filter(isPermission);
  if (!permissions.every((p) => holds(actor, p, input.org_id))) return answer("INSUFFICIENT_PERMISSIONS");
  if (credits) {
    const state = await spendKeyCredits(credits, {}, input.cost);
    details.credits = { remaining: state.remaining };
    if (!state.allowed) return answer("CREDITS_EXHAUSTED");
  }
  if (counting) recordLastUsed(key.id);
  return answer("VALID");
}
