import "server-only";
import { inOneTransaction } from "@/server/db/unit-of-work";
import { NO_REQUEST, recordInUnit } from "@/server/services/audit/service";
import type { Actor } from "@/server/auth/actor";
import { auditName } from "@/server/auth/actor";
import { generateKey, hashKey, isWellFormedKey } from "@/server/auth/api-key-format";
import { requireKnownScopes, requireScopesHeld, requireSelfOrSysAdmin, sanitizeScopes } from "@/server/auth/authorize";
import { loadGrants } from "@/server/auth/grants";
import { CHANNEL, invalidateLocally, notifyPayload } from "@/server/auth/invalidation";
import { dataLayer } from "@/server/db/data-layer";
import { Prisma } from "@/generated/prisma/client";
import { isPermission } from "@/lib/permissions";
import { rateLimitOf } from "@/server/limits/api-limits";
import { isCidr } from "@/server/auth/networks";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { newestFirst, paginate } from "@/server/services/pagination";
import {
  type ApiKey,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type ListApiKeysQuery,
  type RateLimit,
  type RollApiKeyInput,
  type UpdateApiKeyInput,
  type UsageBucket,
  type UsageOutcome,
  type UsageQuery,
  USAGE_RETENTION_DAYS,
} from "@/lib/schemas/api-keys";

// API keys (inputs already validated by the adapters with the schemas of lib/schemas/api-keys):
// issued for a user, within what that user holds; the raw key leaves this module once,
// in the value createApiKey returns, and is stored nowhere (only its SHA-256).

export const MAX_LIFETIME_SETTING = "api_keys.max_lifetime_days";
const DAY_MS = 86_400_000;

const PUBLIC_FIELDS = {
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
} as const;

interface KeyRow {
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

const scopesOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((s) => typeof s === "string") : []);

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: scopesOf(row.scopes),
    rate_limit: rateLimitOf(row.rate_limit) ?? null,
    allowed_org_ids: listOrNull(row.allowed_org_ids),
    allowed_cidrs: listOrNull(row.allowed_cidrs),
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    last_used_ip: row.last_used_ip,
    last_user_agent: row.last_user_agent,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function maxLifetimeDays(db: ReturnType<typeof dataLayer>): Promise<number | undefined> {
  const setting = await db.platformSetting.findUnique({ where: { key: MAX_LIFETIME_SETTING } });
  const value = setting?.value;
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

type Db = ReturnType<typeof dataLayer>;
type Restrictions = { allowed_org_ids?: string[] | null; allowed_cidrs?: string[] | null };

/**
 * Restrictions as stored (an empty list for none), after checking them: each organization one the
 * owner belongs to, each CIDR one the key stage reads. Absent fields stay absent (left unchanged).
 */
async function checkedRestrictions(
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

/** The key a user acts on: their own (a system actor's: any); another user's is a 404. */
async function ownedKey(db: Pick<Db, "apiKey">, actor: Actor, keyId: string) {
  const owned = actor.kind === "system" ? {} : { user_id: actor.userId };
  const key = await db.apiKey.findFirst({ where: { id: keyId, ...owned }, select: PUBLIC_FIELDS });
  if (!key) throw notFound("API key");
  return key;
}

/** Tells every other process, on commit, to drop its cached resolution of the key. */
const announceChange = (tx: Pick<Db, "$executeRaw">, keyId: string) =>
  tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${notifyPayload({ keyId })})`;

function toCreated(row: KeyRow, raw: string): CreatedApiKey {
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
    expires_at: row.expires_at?.toISOString() ?? null,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    raw_key: raw,
  };
}

/**
 * Issues a key owned by `ownerId`. Every scope must be known and, unless the owner is a sys_admin,
 * held by the owner globally or in at least one organization. A refused request stores nothing.
 */
export async function createApiKey(
  actor: Actor,
  ownerId: string,
  input: Omit<CreateApiKeyInput, "rate_limit" | "allowed_org_ids" | "allowed_cidrs"> & {
    rate_limit?: RateLimit | null;
  } & Restrictions,
): Promise<CreatedApiKey> {
  const db = dataLayer(auditName(actor));

  const scopes = requireKnownScopes(input.scopes, "scopes");

  const owner = await db.user.findUnique({ where: { id: ownerId }, select: { id: true } });
  if (!owner) throw notFound("user");
  requireScopesHeld(await loadGrants(db, ownerId), scopes, "The key's owner does");

  const expiresAt = input.expires_at === null ? null : new Date(input.expires_at);
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw validationFailed([{ path: "expires_at", message: "must be in the future" }]);
  }
  const maxDays = await maxLifetimeDays(db);
  if (maxDays !== undefined && (!expiresAt || expiresAt.getTime() > Date.now() + maxDays * DAY_MS)) {
    throw validationFailed([{ path: "expires_at", message: `keys must expire within ${maxDays} days` }]);
  }

  const restrictions = await checkedRestrictions(db, ownerId, input);

  const key = generateKey();
  const row = await db.apiKey.create({
    data: {
      user_id: ownerId,
      name: input.name,
      key_hash: key.hash,
      key_prefix: key.prefix,
      scopes,
      expires_at: expiresAt,
      rate_limit: input.rate_limit ?? Prisma.DbNull,
      ...restrictions,
    },
    select: PUBLIC_FIELDS,
  });
  return toCreated(row, key.raw);
}

/**
 * Replaces one of the actor's keys with a new one (same name, scopes, rate limit, restrictions and
 * expiry; the raw key in the answer only). The old key keeps working for the grace period: its
 * expires_at becomes now plus the grace (0: refused at once), never later than it was.
 */
export async function rollApiKey(actor: Actor, keyId: string, input: RollApiKeyInput): Promise<CreatedApiKey> {
  const db = dataLayer(auditName(actor));
  const key = generateKey();
  const row = await db.$transaction(async (tx) => {
    const old = await ownedKey(tx, actor, keyId);
    const now = Date.now();
    if (!old.is_active || (old.expires_at && old.expires_at.getTime() <= now)) {
      throw new DomainError("conflict", "Only a usable key can be rolled: this one is revoked or expired.");
    }
    const graceEnds = new Date(now + input.grace_period_seconds * 1000);
    const expiresAt = old.expires_at && old.expires_at < graceEnds ? old.expires_at : graceEnds;
    await tx.apiKey.update({ where: { id: keyId }, data: { expires_at: expiresAt }, select: { id: true } });
    await announceChange(tx, keyId);
    return tx.apiKey.create({
      data: {
        user_id: old.user_id,
        name: old.name,
        key_hash: key.hash,
        key_prefix: key.prefix,
        scopes: scopesOf(old.scopes),
        expires_at: old.expires_at,
        rate_limit: rateLimitOf(old.rate_limit) ?? Prisma.DbNull,
        allowed_org_ids: old.allowed_org_ids,
        allowed_cidrs: old.allowed_cidrs,
      },
      select: PUBLIC_FIELDS,
    });
  });
  invalidateLocally({ keyId });
  return toCreated(row, key.raw);
}

/**
 * Changes one of the actor's keys: its name, rate limit and restrictions (never its scopes). The
 * change reaches every process's cached key at once.
 */
export async function updateApiKey(actor: Actor, keyId: string, input: UpdateApiKeyInput): Promise<ApiKey> {
  const db = dataLayer(auditName(actor));
  const row = await db.$transaction(async (tx) => {
    const key = await ownedKey(tx, actor, keyId);
    const restrictions = await checkedRestrictions(tx, key.user_id, input);
    const updated = await tx.apiKey.update({
      where: { id: keyId },
      data: {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.rate_limit === undefined ? {} : { rate_limit: input.rate_limit ?? Prisma.DbNull }),
        ...restrictions,
      },
      select: PUBLIC_FIELDS,
    });
    await announceChange(tx, keyId);
    return updated;
  });
  invalidateLocally({ keyId });
  return toApiKey(row);
}

/**
 * Keys of one user, newest first, revoked ones included unless `active` filters. A user lists their
 * own keys; a sys_admin (or the CLI) may name another user.
 */
export async function listApiKeys(
  actor: Actor,
  query: ListApiKeysQuery,
): Promise<{ data: ApiKey[]; next_cursor: string | null }> {
  const userId = query.user_id ?? (actor.kind === "system" ? undefined : actor.userId);
  if (!userId) throw validationFailed([{ path: "user_id", message: "is required" }]);
  requireSelfOrSysAdmin(actor, userId);
  const now = Date.now();
  const expiring =
    query.expiring_within_days === undefined
      ? {}
      : {
          is_active: true,
          expires_at: { gt: new Date(now), lte: new Date(now + query.expiring_within_days * DAY_MS) },
        };
  const where = { user_id: userId, ...(query.active === undefined ? {} : { is_active: query.active }), ...expiring };
  const db = dataLayer(auditName(actor));
  return paginate(
    query,
    newestFirst,
    (w) =>
      db.apiKey.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take, select: PUBLIC_FIELDS }),
    toApiKey,
  );
}

/** One key, its owner's or (a sys_admin) anyone's; a missing one is a 404. */
export async function getApiKey(actor: Actor, keyId: string): Promise<ApiKey> {
  const key = await dataLayer(auditName(actor)).apiKey.findFirst({ where: { id: keyId }, select: PUBLIC_FIELDS });
  if (!key) throw notFound("API key");
  requireSelfOrSysAdmin(actor, key.user_id);
  return toApiKey(key);
}

/**
 * Revokes a key: it fails at once in this process and within a moment in every other one.
 * A user revokes their own keys only (another's is a 404); revoking twice answers the same.
 */
export async function revokeApiKey(actor: Actor, keyId: string): Promise<ApiKey> {
  const db = dataLayer(auditName(actor));
  const key = await ownedKey(db, actor, keyId);
  if (!key.is_active) return toApiKey(key);
  await revokeKeys(actor, [keyId]);
  return toApiKey(await ownedKey(db, actor, keyId));
}

/**
 * The one way a key is revoked, by its owner or as leaked (the actor says which: the leak report
 * acts as `system:leaked-key-report`): each still-active key of `keyIds` is made inactive and fails
 * at once in this process and, on commit, in every other one. Returns the ids it revoked.
 */
export async function revokeKeys(actor: Actor, keyIds: readonly string[]): Promise<string[]> {
  if (keyIds.length === 0) return [];
  const db = dataLayer(auditName(actor));
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
  for (const keyId of revoked) invalidateLocally({ keyId });
  return revoked;
}

/**
 * Raw keys reported as exposed (by anyone: holding a key is enough to end it): every usable one
 * among them is revoked. The answer says how many values came and nothing else, whatever they were.
 */
export async function revokeLeakedKeys(actor: Actor, raws: readonly string[]): Promise<{ received: number }> {
  const hashes = [
    ...new Set(
      raws
        .map((raw) => raw.trim())
        .filter(isWellFormedKey)
        .map(hashKey),
    ),
  ];
  if (hashes.length > 0) {
    const db = dataLayer(auditName(actor));
    const now = new Date();
    const usable = await db.apiKey.findMany({
      where: { key_hash: { in: hashes }, is_active: true, OR: [{ expires_at: null }, { expires_at: { gt: now } }] },
      select: { id: true },
    });
    const revoked = await revokeKeys(
      actor,
      usable.map((k) => k.id),
    );
    // Each key ended is an event of its own (in the report's unit of work, when there is one), so a
    // key's history shows it was revoked as leaked.
    await inOneTransaction(async (unit) => {
      for (const id of revoked) {
        await recordInUnit(unit, {
          actor,
          action: "revokeApiKey",
          outcome: "success",
          target: { type: "api_key", id },
          orgId: null,
          request: NO_REQUEST,
          eventType: "api_key.leaked",
        });
      }
    });
  }
  return { received: raws.length };
}

const HOUR_MS = 3_600_000;

/**
 * A key's requests per hour and outcome between `from` (default: 7 days ago) and `to` (default:
 * now), oldest first; hours without requests are left out. What the last flush wrote: counts of
 * the last few seconds are still in memory.
 */
export async function apiKeyUsage(actor: Actor, keyId: string, query: UsageQuery): Promise<{ data: UsageBucket[] }> {
  const db = dataLayer(auditName(actor));
  const key = await db.apiKey.findFirst({ where: { id: keyId }, select: { user_id: true } });
  if (!key) throw notFound("API key");
  requireSelfOrSysAdmin(actor, key.user_id);
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
    data: rows.map((r) => ({ hour: r.hour.toISOString(), outcome: r.outcome as UsageOutcome, count: Number(r.count) })),
  };
}

/** The key policy the console's create dialog follows: how long a key may live (null: no limit). */
export async function apiKeyPolicy(actor: Actor): Promise<{ max_lifetime_days: number | null }> {
  return { max_lifetime_days: (await maxLifetimeDays(dataLayer(auditName(actor)))) ?? null };
}
