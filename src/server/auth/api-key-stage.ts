import "server-only";
import { LRUCache } from "lru-cache";
import { CoalescedTouch, KeyUsage } from "@/server/db/bookkeeping";
import { queryRows } from "@/server/db/client";
import { dataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";
import type { ApiKeyActor } from "./actor";
import { checksumMatches, hashKey, hasKeyShape } from "./api-key-format";
import { loadGrants, type Grants } from "./grants";
import { cacheLifetimeMs, listenForInvalidations, onInvalidation } from "./invalidation";
import { addressAllowed, parseNetworks } from "./networks";
import { isPermission } from "@/lib/permissions";
import { BUILT_IN_DEFAULT_RATE_LIMIT, DEFAULT_RATE_LIMIT_SETTING, rateLimitOf } from "@/server/limits/api-limits";
import { metrics } from "@/server/metrics";
import { API_KEYS_IN_MEMORY } from "@/server/keys-in-memory";

// The X-API-KEY stage: shape → SHA-256 → cache, else checksum (no database work for a malformed
// value) → lookup → an ApiKeyActor carrying the owner's memberships and grants and the key's scopes.
// Resolutions are cached per process (bounded) and dropped at once on invalidation: every change
// that a resolution reflects is announced (the key, its owner, grants and memberships, roles,
// organizations' status and names, the default rate limit), so the TTL only bounds how long a
// change made behind the app's back (by hand, in SQL) goes unseen.
// Past its TTL an entry is still served while one background lookup refreshes it (up to twice the
// TTL); TTLs are jittered so keys cached together do not expire together; concurrent misses on one
// key share one lookup. A lookup that straddles an invalidation is not cached, and nothing is
// cached or served from the cache while this process does not hear invalidations (its LISTEN
// connection is down): each request then looks its key up. A process that can never hear them (a
// transaction pooler, no direct connection, no Redis) keeps an entry at most 5 s, stale time included.
// The lookup also reads the platform's
// default rate limit, so the limit costs no query of its own.

const CACHE_MAX = API_KEYS_IN_MEMORY;
// Each refresh is a lookup (and, per owner, a grants load): at 30 s, 100,000 cached keys would cost a
// process over 3,000 lookups a second for nothing the announcements do not already deliver.
const CACHE_TTL_MS = 5 * 60_000;

type Resolution =
  | { status: "unknown" }
  | { status: "revoked"; keyId: string; userId: string }
  | { status: "active"; actor: ApiKeyActor };

interface CacheEntry {
  resolution: Resolution;
  /** Until then the entry is served as it is; after it, served while a lookup refreshes it. */
  fresh: number;
}

// An entry lives twice its jittered TTL: fresh for the first half, served stale (and refreshed in
// the background) for the second.
const cache = new LRUCache<string, CacheEntry>({ max: CACHE_MAX });
const inflight = new Map<string, Promise<Resolution>>();
let generation = 0;

// A finite lifetime (a process that cannot hear) bounds all an entry holds: its owner's grants may
// be half of it old when the entry is made, so the entry lives at most the other half.
function remember(hash: string, resolution: Resolution, lifetime: number) {
  const ttl = Math.min(CACHE_TTL_MS * (0.75 + Math.random() * 0.5), lifetime / 4);
  cache.set(hash, { resolution, fresh: Date.now() + ttl }, { ttl: 2 * ttl });
}

function lookup(hash: string): Promise<Resolution> {
  let pending = inflight.get(hash);
  if (!pending) {
    const started = generation;
    pending = resolve(hash)
      .then((resolution) => {
        const lifetime = cacheLifetimeMs();
        if (generation === started && lifetime > 0) remember(hash, resolution, lifetime);
        return resolution;
      })
      .finally(() => inflight.delete(hash));
    inflight.set(hash, pending);
  }
  return pending;
}

const keyIdOf = (r: Resolution) =>
  r.status === "active" ? r.actor.key.id : r.status === "revoked" ? r.keyId : undefined;
const userIdOf = (r: Resolution) =>
  r.status === "active" ? r.actor.userId : r.status === "revoked" ? r.userId : undefined;

// Owners' grants, shared by all of an owner's keys (many keys, few owners): one lookup per owner
// per TTL instead of one per key. Dropped with the owner's keys on invalidation.
const ownerGrants = new LRUCache<string, Promise<Grants>>({ max: CACHE_MAX, ttl: CACHE_TTL_MS / 2 });

function grantsOf(userId: string): Promise<Grants> {
  const cached = ownerGrants.get(userId);
  if (cached) return cached;
  const grants = loadGrants(dataLayer("system:auth"), userId);
  const lifetime = cacheLifetimeMs();
  if (lifetime === 0) return grants;
  ownerGrants.set(userId, grants, { ttl: Math.min(CACHE_TTL_MS / 2, lifetime / 2) });
  grants.catch(() => ownerGrants.delete(userId));
  return grants;
}

onInvalidation((event) => {
  generation++;
  inflight.clear();
  if ("all" in event) ownerGrants.clear();
  if ("userId" in event) ownerGrants.delete(event.userId);
  if ("all" in event) return cache.clear();
  for (const [hash, { resolution }] of cache.entries()) {
    if ("keyId" in event ? keyIdOf(resolution) === event.keyId : userIdOf(resolution) === event.userId)
      cache.delete(hash);
  }
});

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
  username: string;
  display_name: string | null;
}

// One statement, straight through the pool (queryRows): a lookup costs a third of a millisecond of
// CPU instead of Prisma's several, which matters when a burst of cached keys is refreshed at once.
const KEY_LOOKUP = `SELECT k.id, k.user_id, k.key_prefix, k.scopes, k.rate_limit, k.expires_at, k.allowed_org_ids, k.allowed_cidrs,
    k.is_active AND NOT k.is_deleted AND NOT u.is_deleted AS usable, u.username, u.display_name,
    (SELECT s.value FROM platform_settings s WHERE s.key = $2 AND NOT s.is_deleted) AS default_rate_limit
  FROM api_keys k JOIN users u ON u.id = k.user_id
  WHERE k.key_hash = $1`;

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

async function resolve(hash: string): Promise<Resolution> {
  const [key] = await queryRows<KeyRow>(KEY_LOOKUP, [hash, DEFAULT_RATE_LIMIT_SETTING]);
  if (!key) return { status: "unknown" };
  if (!key.usable) return { status: "revoked", keyId: key.id, userId: key.user_id };
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
      },
    },
  };
}

// The key a refusal was about, when the key is known (revoked, expired, used from elsewhere): its
// usage counts the refusal.
const refusedKeys = new WeakMap<DomainError, string>();

/** The id of the known key a refusal of this stage was about, if any. */
export const refusedKeyOf = (error: unknown): string | undefined =>
  error instanceof DomainError ? refusedKeys.get(error) : undefined;

function refusal(keyId: string, error: DomainError): DomainError {
  refusedKeys.set(error, keyId);
  return error;
}

/**
 * The actor of a presented X-API-KEY value, or the 401 (or, from an address outside the key's
 * networks, the 403) that refuses it: straight from the cache when the key is known (no promise on
 * the hot path), else once its lookup completes. A refusal is thrown, at once or as the promise's
 * rejection.
 */
export function authenticateApiKey(raw: string, clientAddress = "unknown"): ApiKeyActor | Promise<ApiKeyActor> {
  const { keyAuthentications, keyCache } = metrics();
  if (!hasKeyShape(raw)) throw invalidKey();
  listenForInvalidations();
  const hash = hashKey(raw);
  const trusted = cacheLifetimeMs() > 0;
  const cached = trusted ? cache.get(hash) : undefined;
  // Only a key whose checksum held was ever looked up, so a cached one needs no second check.
  if (cached) {
    const now = Date.now();
    const stale = now >= cached.fresh;
    keyCache.inc({ result: stale ? "stale" : "hit" });
    if (stale) void lookup(hash).catch(() => undefined);
    return accept(cached.resolution, now, clientAddress);
  }
  if (!checksumMatches(raw)) throw invalidKey();
  keyCache.inc({ result: trusted ? "miss" : "bypass" });
  return lookup(hash).then(
    (resolution) => accept(resolution, Date.now(), clientAddress),
    (error: unknown) => {
      keyAuthentications.inc({ outcome: "unavailable" });
      throw error;
    },
  );
}

function invalidKey(): DomainError {
  metrics().keyAuthentications.inc({ outcome: "invalid" });
  return new DomainError("invalid_api_key", "The API key is not valid.");
}

function accept(resolution: Resolution, now: number, clientAddress: string): ApiKeyActor {
  const { keyAuthentications } = metrics();
  if (resolution.status === "unknown") throw invalidKey();
  if (resolution.status === "revoked") {
    keyAuthentications.inc({ outcome: "revoked" });
    throw refusal(resolution.keyId, new DomainError("api_key_revoked", "The API key has been revoked."));
  }
  const { actor } = resolution;
  if (actor.key.expiresAt && actor.key.expiresAt.getTime() <= now) {
    keyAuthentications.inc({ outcome: "expired" });
    throw refusal(actor.key.id, new DomainError("api_key_expired", "The API key has expired."));
  }
  if (actor.key.networks && !addressAllowed(actor.key.networks, clientAddress)) {
    keyAuthentications.inc({ outcome: "ip_not_allowed" });
    throw refusal(actor.key.id, new DomainError("ip_not_allowed", "This API key may not be used from your address."));
  }
  keyAuthentications.inc({ outcome: "accepted" });
  recordUse(actor.key.id);
  return actor;
}

// last_used_at and usage: best effort, off the request path (see db/bookkeeping.ts).
const keyUse = new CoalescedTouch({ table: "api_keys", column: "last_used_at" });
const recordUse = (keyId: string) => keyUse.record(keyId);
const usage = new KeyUsage();

/** Counts a key's request by the status it was answered with, from this address and user agent. */
export const recordKeyUsage = (keyId: string, status: number, address: string, userAgent: string | null): void =>
  usage.record(keyId, status, address, userAgent);

/** Writes pending last_used_at values now; returns the number of rows written. */
export const flushLastUsed = (): Promise<number> => keyUse.flush();

/** Writes the usage counted so far now; returns the number of keys written. */
export const flushKeyUsage = (): Promise<number> => usage.flush();

/** Deletes usage buckets past their retention now. */
export const pruneKeyUsage = (): Promise<void> => usage.prune();
