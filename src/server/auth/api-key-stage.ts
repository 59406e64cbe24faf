import "server-only";
import { LRUCache } from "lru-cache";
import { CoalescedTouch } from "@/server/db/bookkeeping";
import { queryRows } from "@/server/db/client";
import { dataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";
import type { ApiKeyActor } from "./actor";
import { hashKey, isWellFormedKey } from "./api-key-format";
import { loadGrants, type Grants } from "./grants";
import { ensureListening, onInvalidation } from "./invalidation";
import { isPermission } from "@/lib/permissions";

// The X-API-KEY stage: checksum (no database work for a malformed value) → SHA-256 → cached
// lookup → an ApiKeyActor carrying the owner's memberships and grants and the key's scopes.
// Resolutions are cached per process (bounded, short TTL) and dropped at once on invalidation.
// Past its TTL an entry is still served while one background lookup refreshes it (up to twice the
// TTL); TTLs are jittered so keys cached together do not expire together; concurrent misses on one
// key share one lookup. A lookup that straddles an invalidation is not cached.

const CACHE_MAX = 10_000;
const CACHE_TTL_MS = 30_000;

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

function remember(hash: string, resolution: Resolution) {
  const ttl = CACHE_TTL_MS * (0.75 + Math.random() * 0.5);
  cache.set(hash, { resolution, fresh: Date.now() + ttl }, { ttl: 2 * ttl });
}

function lookup(hash: string): Promise<Resolution> {
  let pending = inflight.get(hash);
  if (!pending) {
    const started = generation;
    pending = resolve(hash)
      .then((resolution) => {
        if (generation === started) remember(hash, resolution);
        return resolution;
      })
      .finally(() => inflight.delete(hash));
    inflight.set(hash, pending);
  }
  return pending;
}

const keyIdOf = (r: Resolution) => (r.status === "active" ? r.actor.key.id : r.status === "revoked" ? r.keyId : undefined);
const userIdOf = (r: Resolution) => (r.status === "active" ? r.actor.userId : r.status === "revoked" ? r.userId : undefined);

// Owners' grants, shared by all of an owner's keys (many keys, few owners): one lookup per owner
// per TTL instead of one per key. Dropped with the owner's keys on invalidation.
const ownerGrants = new LRUCache<string, Promise<Grants>>({ max: CACHE_MAX, ttl: CACHE_TTL_MS / 2 });

function grantsOf(userId: string): Promise<Grants> {
  const cached = ownerGrants.get(userId);
  if (cached) return cached;
  const grants = loadGrants(dataLayer("system:auth"), userId);
  ownerGrants.set(userId, grants);
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
    if ("keyId" in event ? keyIdOf(resolution) === event.keyId : userIdOf(resolution) === event.userId) cache.delete(hash);
  }
});

interface KeyRow {
  id: string;
  user_id: string;
  key_prefix: string;
  scopes: unknown;
  expires_at: Date | null;
  usable: boolean;
  username: string;
  display_name: string | null;
}

// One statement, straight through the pool (queryRows): a lookup costs a third of a millisecond of
// CPU instead of Prisma's several, which matters when a burst of cached keys is refreshed at once.
const KEY_LOOKUP = `SELECT k.id, k.user_id, k.key_prefix, k.scopes, k.expires_at,
    k.is_active AND NOT k.is_deleted AND NOT u.is_deleted AS usable, u.username, u.display_name
  FROM api_keys k JOIN users u ON u.id = k.user_id
  WHERE k.key_hash = $1`;

async function resolve(hash: string): Promise<Resolution> {
  const [key] = await queryRows<KeyRow>(KEY_LOOKUP, [hash]);
  if (!key) return { status: "unknown" };
  if (!key.usable) return { status: "revoked", keyId: key.id, userId: key.user_id };
  const grants = await grantsOf(key.user_id);
  const scopes = (Array.isArray(key.scopes) ? key.scopes : []).filter((s): s is string => typeof s === "string").filter(isPermission);
  return {
    status: "active",
    actor: {
      kind: "api_key",
      userId: key.user_id,
      username: key.username,
      displayName: key.display_name,
      grants,
      key: { id: key.id, prefix: key.key_prefix, expiresAt: key.expires_at, scopes },
    },
  };
}

/**
 * The actor of a presented X-API-KEY value, or the 401 that refuses it: straight from the cache
 * when the key is known (no promise on the hot path), else once its lookup completes. A refusal is
 * thrown, at once or as the promise's rejection.
 */
export function authenticateApiKey(raw: string): ApiKeyActor | Promise<ApiKeyActor> {
  if (!isWellFormedKey(raw)) throw new DomainError("invalid_api_key", "The API key is not valid.");
  ensureListening();
  const hash = hashKey(raw);
  const cached = cache.get(hash);
  const now = Date.now();
  if (cached) {
    if (now >= cached.fresh) void lookup(hash).catch(() => undefined);
    return accept(cached.resolution, now);
  }
  return lookup(hash).then((resolution) => accept(resolution, Date.now()));
}

function accept(resolution: Resolution, now: number): ApiKeyActor {
  if (resolution.status === "unknown") throw new DomainError("invalid_api_key", "The API key is not valid.");
  if (resolution.status === "revoked") throw new DomainError("api_key_revoked", "The API key has been revoked.");
  const { actor } = resolution;
  if (actor.key.expiresAt && actor.key.expiresAt.getTime() <= now) {
    throw new DomainError("api_key_expired", "The API key has expired.");
  }
  recordUse(actor.key.id);
  return actor;
}

// last_used_at: best effort, off the request path (see db/bookkeeping.ts).
const keyUse = new CoalescedTouch({ table: "api_keys", column: "last_used_at" });
const recordUse = (keyId: string) => keyUse.record(keyId);

/** Writes pending last_used_at values now; returns the number of rows written. */
export const flushLastUsed = (): Promise<number> => keyUse.flush();
