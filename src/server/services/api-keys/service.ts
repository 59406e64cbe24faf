import "server-only";
import type { Context } from "@/server/db/context";
import type { Actor } from "@/server/auth/actor";
import { generateKey } from "@/server/auth/api-key-format";
import { requireSelfOrSysAdmin } from "@/server/auth/authorize";
import { requireKnownScopes, requireScopesHeld } from "@/server/auth/escalation";
import { loadGrants } from "@/server/auth/grants";
import { announceCommitted } from "@/server/auth/invalidation";
import { Prisma } from "@/generated/prisma/client";
import { rateLimitOf } from "@/server/limits/api-limits";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { newestFirst, paginate } from "@/server/services/pagination";
import {
  metaOf,
  type ApiKeyMeta,
  type ChangeCreditsInput,
  type CreateApiKeyInput,
  type CreditsInput,
  type ListApiKeysQuery,
  type RateLimit,
  type RollApiKeyInput,
  type UpdateApiKeyInput,
} from "@/lib/schemas/api-keys";
import { changedCreditColumns, creditColumns } from "./credits";
import {
  keyPolicyFor,
  platformKeyPolicy,
  requireExpiryAllowed,
  requireRateLimitAllowed,
  requireRoomForKey,
} from "./policy";
import {
  announceChange,
  checkedRestrictions,
  DAY_MS,
  PUBLIC_FIELDS,
  scopesOf,
  toApiKey,
  toCreated,
  type ApiKey,
  type CreatedApiKey,
  type Db,
  type Restrictions,
} from "./rows";

// API keys (inputs already validated by the adapters with the schemas of lib/schemas/api-keys):
// issued for a user, within what that user holds and the key policies; the raw key leaves this
// module once, in the value createApiKey returns, and is stored nowhere (only its SHA-256).

/** What issuing a key takes: the create body, its optional parts left out where a caller has none. */
export type IssueKeyInput = Omit<
  CreateApiKeyInput,
  "rate_limit" | "allowed_org_ids" | "allowed_cidrs" | "credits" | "meta"
> & {
  rate_limit?: RateLimit | null;
  credits?: CreditsInput;
  meta?: ApiKeyMeta;
} & Restrictions;

/**
 * Whose keys a call may touch: by default the actor's own (a system actor's: anyone's). A service
 * account's keys are touched by whoever its organization lets manage them (decided before the call),
 * named here as the account.
 */
export interface KeysOf {
  userId: string;
}

/** The key a call acts on: the owner's (see KeysOf); anyone else's is a 404. */
async function ownedKey(db: Pick<Db, "apiKey">, actor: Actor, keyId: string, of?: KeysOf) {
  const owned = of ? { user_id: of.userId } : actor.kind === "system" ? {} : { user_id: actor.userId };
  const key = await db.apiKey.findFirst({ where: { id: keyId, ...owned }, select: PUBLIC_FIELDS });
  if (!key) throw notFound("API key");
  return key;
}

/**
 * Issues a key owned by `ownerId`. Every scope must be known and, unless the owner is a sys_admin,
 * held by the owner globally or in at least one organization; the key must follow the owner's key
 * policy. A refused request stores nothing.
 */
export async function createApiKey(ctx: Context, ownerId: string, input: IssueKeyInput): Promise<CreatedApiKey> {
  const { db } = ctx;

  const scopes = requireKnownScopes(input.scopes, "scopes");

  const owner = await db.user.findUnique({ where: { id: ownerId }, select: { id: true } });
  if (!owner) throw notFound("user");
  requireScopesHeld(await loadGrants(db, ownerId), scopes, "The key's owner does");

  const now = Date.now();
  const expiresAt = input.expires_at === null ? null : new Date(input.expires_at);
  if (expiresAt && expiresAt.getTime() <= now) {
    throw validationFailed([{ path: "expires_at", message: "must be in the future" }]);
  }
  const policy = await keyPolicyFor(db, ownerId);
  requireExpiryAllowed(policy, expiresAt, now);
  requireRateLimitAllowed(ctx.actor, policy, input.rate_limit);

  const restrictions = await checkedRestrictions(db, ownerId, input);

  const key = generateKey();
  const row = await db.$transaction(async (tx) => {
    await requireRoomForKey(tx, policy, ownerId);
    return tx.apiKey.create({
      data: {
        user_id: ownerId,
        name: input.name,
        key_hash: key.hash,
        key_prefix: key.prefix,
        scopes,
        expires_at: expiresAt,
        rate_limit: input.rate_limit ?? Prisma.DbNull,
        ...restrictions,
        ...creditColumns(input.credits ?? null, now),
        meta: input.meta ?? {},
      },
      select: PUBLIC_FIELDS,
    });
  });
  return toCreated(row, key.raw);
}

/**
 * Replaces one of the actor's keys with a new one (same name, scopes, rate limit, restrictions and
 * expiry; the raw key in the answer only). The old key keeps working for the grace period: its
 * expires_at becomes now plus the grace (0: refused at once), never later than it was. The new key
 * must follow the key policy as it is now. The expiry a successor inherits is the old key's from
 * before its first roll, so rolling a key again during its grace gives a successor that lives as
 * long as the first one, not one that dies with the grace.
 */
export async function rollApiKey(
  ctx: Context,
  keyId: string,
  input: RollApiKeyInput,
  of?: KeysOf,
): Promise<CreatedApiKey> {
  const { db } = ctx;
  const key = generateKey();
  const row = await db.$transaction(async (tx) => {
    // Locked: no request takes from the balance between reading it here and moving it to the successor.
    const old = await lockedKey(tx, ctx.actor, keyId, of);
    const now = Date.now();
    if (!old.is_active || (old.expires_at && old.expires_at.getTime() <= now)) {
      throw new DomainError("conflict", "Only a usable key can be rolled: this one is revoked or expired.");
    }
    const rolled = await tx.apiKey.findUniqueOrThrow({
      where: { id: keyId },
      select: {
        rolled_at: true,
        expires_at_before_roll: true,
        credits_key_id: true,
        credits_version: true,
        credits_low_sent: true,
        credits_exhausted_sent: true,
      },
    });
    // The expiry the key had before any roll shortened it to a grace period.
    const inherited = rolled.rolled_at ? rolled.expires_at_before_roll : old.expires_at;
    const policy = await keyPolicyFor(tx, old.user_id);
    requireExpiryAllowed(policy, inherited, now);
    requireRateLimitAllowed(ctx.actor, policy, rateLimitOf(old.rate_limit));
    await requireRoomForKey(tx, policy, old.user_id, keyId);
    const graceEnds = new Date(now + input.grace_period_seconds * 1000);
    const expiresAt = old.expires_at && old.expires_at < graceEnds ? old.expires_at : graceEnds;
    await tx.apiKey.update({
      where: { id: keyId },
      data: {
        expires_at: expiresAt,
        ...(rolled.rolled_at ? {} : { rolled_at: new Date(now), expires_at_before_roll: old.expires_at }),
      },
      select: { id: true },
    });
    await announceChange(tx, keyId);
    // The successor takes the key's balance (and the balance's version, so credits a process holds
    // go back to it); the old key, and any it was rolled from, spend the successor's from now on. A
    // key that already spends another's passes that on.
    const balance = rolled.credits_key_id ? null : old;
    const successor = await tx.apiKey.create({
      data: {
        user_id: old.user_id,
        name: old.name,
        key_hash: key.hash,
        key_prefix: key.prefix,
        scopes: scopesOf(old.scopes),
        expires_at: inherited,
        rate_limit: rateLimitOf(old.rate_limit) ?? Prisma.DbNull,
        allowed_org_ids: old.allowed_org_ids,
        allowed_cidrs: old.allowed_cidrs,
        meta: metaOf(old.meta),
        ...(balance
          ? {
              credits_remaining: balance.credits_remaining,
              credits_refill_amount: balance.credits_refill_amount,
              credits_refill_interval: balance.credits_refill_interval,
              credits_refill_day: balance.credits_refill_day,
              credits_low_threshold: balance.credits_low_threshold,
              credits_refilled_at: balance.credits_refilled_at,
              credits_version: rolled.credits_version,
              credits_low_sent: rolled.credits_low_sent,
              credits_exhausted_sent: rolled.credits_exhausted_sent,
            }
          : { credits_key_id: rolled.credits_key_id }),
      },
      select: PUBLIC_FIELDS,
    });
    if (balance) {
      await tx.apiKey.updateMany({
        where: { OR: [{ id: keyId }, { credits_key_id: keyId }] },
        data: { ...creditColumns(null), credits_key_id: successor.id },
      });
    }
    return successor;
  });
  announceCommitted({ keyId });
  return toCreated(row, key.raw);
}

/**
 * Changes one of the actor's keys: its name, rate limit and restrictions (never its scopes). An
 * active key that no longer follows the key policy (an expiry too far off, or none where one is
 * required, or a rate limit above the ceiling for a caller who is no sys_admin) cannot be changed:
 * it is rolled or revoked. The change reaches every process's cached key at once.
 */
export async function updateApiKey(
  ctx: Context,
  keyId: string,
  input: UpdateApiKeyInput,
  of?: KeysOf,
): Promise<ApiKey> {
  const { db } = ctx;
  const { row, announced } = await db.$transaction(async (tx) => {
    const key = await ownedKey(tx, ctx.actor, keyId, of);
    if (key.is_active) {
      const policy = await keyPolicyFor(tx, key.user_id);
      requireExpiryAllowed(policy, key.expires_at, Date.now());
      const rateLimit = input.rate_limit === undefined ? rateLimitOf(key.rate_limit) : input.rate_limit;
      requireRateLimitAllowed(ctx.actor, policy, rateLimit);
    }
    const restrictions = await checkedRestrictions(tx, key.user_id, input);
    if (input.credits !== undefined) requireOwnBalance(key);
    const updated = await tx.apiKey.update({
      where: { id: keyId },
      data: {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.rate_limit === undefined ? {} : { rate_limit: input.rate_limit ?? Prisma.DbNull }),
        ...restrictions,
        ...(input.credits === undefined ? {} : { ...creditColumns(input.credits), credits_version: { increment: 1 } }),
        ...(input.meta === undefined ? {} : { meta: input.meta }),
      },
      select: PUBLIC_FIELDS,
    });
    return { row: updated, announced: await announceBalanceChange(tx, keyId) };
  });
  for (const id of announced) announceCommitted({ keyId: id });
  return toApiKey(row);
}

/**
 * One of the actor's keys, its row locked for the rest of the transaction (and read again once
 * locked): its balance cannot move under a change made from what was read.
 */
async function lockedKey(tx: Pick<Db, "apiKey" | "$queryRaw">, actor: Actor, keyId: string, of?: KeysOf) {
  await ownedKey(tx, actor, keyId, of);
  await tx.$queryRaw`SELECT 1 FROM api_keys WHERE id = ${keyId}::uuid FOR UPDATE`;
  return ownedKey(tx, actor, keyId, of);
}

/** A rolled key spends its successor's credits: those are the ones to change. */
function requireOwnBalance(key: { credits_key: unknown }): void {
  if (key.credits_key)
    throw new DomainError(
      "conflict",
      "This key was rolled: it spends its successor's credits, so change those (on the new key).",
    );
}

/** Tells every process of a change to the key and to the keys that spend its credits (rolled from it). */
async function announceBalanceChange(tx: Pick<Db, "$executeRaw" | "apiKey">, keyId: string): Promise<string[]> {
  const spenders = await tx.apiKey.findMany({ where: { credits_key_id: keyId }, select: { id: true } });
  const ids = [keyId, ...spenders.map((s) => s.id)];
  for (const id of ids) await announceChange(tx, id);
  return ids;
}

/**
 * Sets, raises or lowers a key's credits (`set` with null: unlimited). The row is locked first, so
 * no request's take interleaves; a refill that fell due is applied before an increment or
 * decrement. Every process drops what it holds of the old balance.
 */
export async function changeCredits(
  ctx: Context,
  keyId: string,
  change: ChangeCreditsInput,
  of?: KeysOf,
): Promise<ApiKey> {
  const { db } = ctx;
  const { row, announced } = await db.$transaction(async (tx) => {
    const key = await lockedKey(tx, ctx.actor, keyId, of);
    requireOwnBalance(key);
    const unlimited = key.credits_remaining === null;
    if (unlimited && change.op !== "set")
      throw new DomainError("conflict", "The key is unlimited: set a balance before raising or lowering it.");
    const data =
      change.op === "set" && (change.amount === null || unlimited)
        ? {
            ...creditColumns(change.amount === null ? null : { remaining: change.amount, refill: null, low_at: null }),
            credits_version: { increment: 1 },
          }
        : changedCreditColumns(key, change);
    const updated = await tx.apiKey.update({ where: { id: keyId }, data, select: PUBLIC_FIELDS });
    return { row: updated, announced: await announceBalanceChange(tx, keyId) };
  });
  for (const id of announced) announceCommitted({ keyId: id });
  return toApiKey(row);
}

/**
 * Keys of one user, newest first, revoked ones included unless `active` filters. A user lists their
 * own keys; a sys_admin (or the CLI) may name another user; `of` names a service account.
 */
export async function listApiKeys(
  ctx: Context,
  query: ListApiKeysQuery,
  of?: KeysOf,
): Promise<{ data: ApiKey[]; next_cursor: string | null }> {
  const userId = of?.userId ?? query.user_id ?? (ctx.actor.kind === "system" ? undefined : ctx.actor.userId);
  if (!userId) throw validationFailed([{ path: "user_id", message: "is required" }]);
  if (!of) requireSelfOrSysAdmin(ctx.actor, userId);
  const now = Date.now();
  const expiring =
    query.expiring_within_days === undefined
      ? {}
      : {
          is_active: true,
          expires_at: { gt: new Date(now), lte: new Date(now + query.expiring_within_days * DAY_MS) },
        };
  const where = { user_id: userId, ...(query.active === undefined ? {} : { is_active: query.active }), ...expiring };
  const { db } = ctx;
  return paginate(
    query,
    newestFirst,
    (w) =>
      db.apiKey.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take, select: PUBLIC_FIELDS }),
    toApiKey,
  );
}

/** One key, its owner's or (a sys_admin) anyone's; a missing one is a 404. */
export async function getApiKey(ctx: Context, keyId: string, of?: KeysOf): Promise<ApiKey> {
  const where = { id: keyId, ...(of ? { user_id: of.userId } : {}) };
  const key = await ctx.db.apiKey.findFirst({ where, select: PUBLIC_FIELDS });
  if (!key) throw notFound("API key");
  if (!of) requireSelfOrSysAdmin(ctx.actor, key.user_id);
  return toApiKey(key);
}

/**
 * Revokes a key: it fails at once in this process and within a moment in every other one.
 * A user revokes their own keys only (another's is a 404); revoking twice answers the same.
 */
export async function revokeApiKey(ctx: Context, keyId: string, of?: KeysOf): Promise<ApiKey> {
  const { db } = ctx;
  const key = await ownedKey(db, ctx.actor, keyId, of);
  if (!key.is_active) return toApiKey(key);
  await revokeKeys(ctx, [keyId]);
  return toApiKey(await ownedKey(db, ctx.actor, keyId, of));
}

/**
 * The one way a key is revoked, by its owner, as leaked, as idle or all of a user's at once (the
 * actor says who): each still-active key of `keyIds` is made inactive and fails at once in this
 * process and, on commit, in every other one. Returns the ids it revoked.
 */
export async function revokeKeys(ctx: Context, keyIds: readonly string[]): Promise<string[]> {
  if (keyIds.length === 0) return [];
  const { db } = ctx;
  const revoked = await db.$transaction(async (tx) => {
    const active = await tx.apiKey.findMany({
      where: { id: { in: [...keyIds] }, is_active: true },
      select: { id: true },
    });
    const ids = active.map((k) => k.id);
    if (ids.length === 0) return ids;
    await tx.apiKey.updateMany({ where: { id: { in: ids } }, data: { is_active: false } });
    for (const keyId of ids) await announceChange(tx, keyId);
    return ids;
  });
  for (const keyId of revoked) announceCommitted({ keyId });
  return revoked;
}

/** The key policy the console's create dialog follows: the platform's. */
export async function apiKeyPolicy(ctx: Context) {
  const policy = await platformKeyPolicy(ctx.db);
  return { max_lifetime_days: policy.max_lifetime_days, require_expiry: policy.require_expiry };
}
