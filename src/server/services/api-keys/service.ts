import "server-only";
import type { Actor } from "@/server/auth/actor";
import { auditName } from "@/server/auth/actor";
import { generateKey } from "@/server/auth/api-key-format";
import { requireKnownScopes, requireScopesHeld, requireSelfOrSysAdmin, sanitizeScopes } from "@/server/auth/authorize";
import { loadGrants } from "@/server/auth/grants";
import { CHANNEL, invalidateLocally, notifyPayload } from "@/server/auth/invalidation";
import { dataLayer } from "@/server/db/data-layer";
import { notFound, validationFailed } from "@/server/errors";
import { newestFirst, paginate } from "@/server/services/pagination";
import {
  type ApiKey,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type ListApiKeysQuery,
} from "@/lib/schemas/api-keys";

// API keys (inputs already validated by the adapters with the schemas of lib/schemas/api-keys):
// issued for a user, within what that user holds; the raw key leaves this module once,
// in the value createApiKey returns, and is stored nowhere (only its SHA-256).

export const MAX_LIFETIME_SETTING = "api_keys.max_lifetime_days";
const DAY_MS = 86_400_000;

const PUBLIC_FIELDS = {
  id: true, user_id: true, name: true, key_prefix: true, scopes: true, expires_at: true,
  last_used_at: true, is_active: true, created_at: true, updated_at: true,
} as const;

interface KeyRow {
  id: string; user_id: string; name: string; key_prefix: string; scopes: unknown;
  expires_at: Date | null; last_used_at: Date | null; is_active: boolean; created_at: Date; updated_at: Date;
}

const scopesOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((s) => typeof s === "string") : []);

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: scopesOf(row.scopes),
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
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

/**
 * Issues a key owned by `ownerId`. Every scope must be known and, unless the owner is a sys_admin,
 * held by the owner globally or in at least one organization. A refused request stores nothing.
 */
export async function createApiKey(actor: Actor, ownerId: string, input: CreateApiKeyInput): Promise<CreatedApiKey> {
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

  const key = generateKey();
  const row = await db.apiKey.create({
      data: { user_id: ownerId, name: input.name, key_hash: key.hash, key_prefix: key.prefix, scopes, expires_at: expiresAt },
      select: PUBLIC_FIELDS,
    });
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes,
    effective_scopes: sanitizeScopes(scopes),
    expires_at: row.expires_at?.toISOString() ?? null,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    raw_key: key.raw,
  };
}

/**
 * Keys of one user, newest first, revoked ones included unless `active` filters. A user lists their
 * own keys; a sys_admin (or the CLI) may name another user.
 */
export async function listApiKeys(actor: Actor, query: ListApiKeysQuery): Promise<{ data: ApiKey[]; next_cursor: string | null }> {
  const userId = query.user_id ?? (actor.kind === "system" ? undefined : actor.userId);
  if (!userId) throw validationFailed([{ path: "user_id", message: "is required" }]);
  requireSelfOrSysAdmin(actor, userId);
  const where = { user_id: userId, ...(query.active === undefined ? {} : { is_active: query.active }) };
  const db = dataLayer(auditName(actor));
  return paginate(query, newestFirst, (w) => db.apiKey.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take, select: PUBLIC_FIELDS }), toApiKey);
}

/**
 * Revokes a key: it fails at once in this process and within a moment in every other one.
 * A user revokes their own keys only (another's is a 404); revoking twice answers the same.
 */
export async function revokeApiKey(actor: Actor, keyId: string): Promise<ApiKey> {
  const db = dataLayer(auditName(actor));
  const owned = actor.kind === "system" ? {} : { user_id: actor.userId };
  const row = await db.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, ...owned }, select: PUBLIC_FIELDS });
    if (!key) throw notFound("API key");
    if (!key.is_active) return key;
    const revoked = await tx.apiKey.update({ where: { id: keyId }, data: { is_active: false }, select: PUBLIC_FIELDS });
    await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${notifyPayload({ keyId })})`;
    return revoked;
  });
  invalidateLocally({ keyId });
  return toApiKey(row);
}

/** The key policy the console's create dialog follows: how long a key may live (null: no limit). */
export async function apiKeyPolicy(actor: Actor): Promise<{ max_lifetime_days: number | null }> {
  return { max_lifetime_days: (await maxLifetimeDays(dataLayer(auditName(actor)))) ?? null };
}
