import "server-only";
import { LRUCache } from "lru-cache";
import { dataLayer } from "@/server/db/data-layer";
import { API_KEYS_IN_MEMORY } from "@/server/keys-in-memory";
import { resolveKey, type Resolution } from "./api-key-lookup";
import { loadGrants, type Grants } from "./grants";
import { cacheLifetimeMs, onInvalidation } from "./invalidation";

// The per-process cache of API key resolutions (bounded), so a known key costs no database work.
// Every change a resolution reflects is announced to all processes and drops its entries at once;
// the TTL only bounds how long a change made by hand in SQL goes unseen. Nothing is served from it
// while this process cannot receive those announcements.
// See docs/decisions/008-key-cache-and-invalidation.md.

const CACHE_MAX = API_KEYS_IN_MEMORY;
// Each refresh is a lookup (and, per owner, a grants load): at 30 s, 100,000 cached keys would cost a
// process over 3,000 lookups a second for nothing the announcements do not already deliver.
const CACHE_TTL_MS = 5 * 60_000;

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

/** The cached entry of this key hash, if any. */
export const cachedResolution = (hash: string): CacheEntry | undefined => cache.get(hash);

// A finite lifetime (a process that cannot receive invalidations) bounds all an entry holds: its owner's grants may
// be half of it old when the entry is made, so the entry lives at most the other half.
function remember(hash: string, resolution: Resolution, lifetime: number) {
  const ttl = Math.min(CACHE_TTL_MS * (0.75 + Math.random() * 0.5), lifetime / 4);
  cache.set(hash, { resolution, fresh: Date.now() + ttl }, { ttl: 2 * ttl });
}

/** Looks the key of this hash up (sharing a lookup already under way) and caches what it finds. */
export function lookUpKey(hash: string): Promise<Resolution> {
  let pending = inflight.get(hash);
  if (!pending) {
    const started = generation;
    pending = resolveKey(hash, grantsOf)
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
