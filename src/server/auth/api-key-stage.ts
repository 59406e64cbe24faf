import "server-only";
import { DomainError } from "@/server/errors";
import { metrics } from "@/server/metrics";
import type { ApiKeyActor } from "./actor";
import { cachedResolution, lookUpKey } from "./api-key-cache";
import { checksumMatches, hashKey, hasKeyShape } from "./api-key-format";
import type { Resolution } from "./api-key-lookup";
import { recordLastUsed } from "./api-key-usage";
import { cacheLifetimeMs, listenForInvalidations } from "./invalidation";
import { addressAllowed } from "./networks";

// The X-API-KEY stage: shape → SHA-256 → cache, else checksum (no database work for a malformed
// value) → lookup → the key's actor, or the refusal of an unknown, revoked or expired key or of one
// used from outside its networks. Its parts: api-key-format.ts, api-key-cache.ts, api-key-lookup.ts
// and api-key-usage.ts. While this process cannot receive invalidations, every request looks its key up.

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
 * What a presented key value is: unknown (malformed ones included), revoked (or deleted), or the
 * active key's actor: at once from the cache when the key is known (no promise, which every
 * request would pay for), else once its lookup completes.
 */
export function resolvePresentedKey(raw: string): Resolution | Promise<Resolution> {
  const { keyAuthentications, keyCache } = metrics();
  if (!hasKeyShape(raw)) return UNKNOWN;
  listenForInvalidations();
  const hash = hashKey(raw);
  const trusted = cacheLifetimeMs() > 0;
  const cached = trusted ? cachedResolution(hash) : undefined;
  // Only a key whose checksum held was ever looked up, so a cached one needs no second check.
  if (cached) {
    const stale = Date.now() >= cached.fresh;
    keyCache.inc({ result: stale ? "stale" : "hit" });
    if (stale) void lookUpKey(hash).catch(() => undefined);
    return cached.resolution;
  }
  if (!checksumMatches(raw)) return UNKNOWN;
  keyCache.inc({ result: trusted ? "miss" : "bypass" });
  return lookUpKey(hash).catch((error: unknown) => {
    keyAuthentications.inc({ outcome: "unavailable" });
    throw error;
  });
}

const UNKNOWN: Resolution = { status: "unknown" };

/**
 * The actor of a presented X-API-KEY value, or the 401 (or, from an address outside the key's
 * networks, the 403) that refuses it, as the promise's rejection.
 */
export async function authenticateApiKey(raw: string, clientAddress = "unknown"): Promise<ApiKeyActor> {
  const resolution = resolvePresentedKey(raw);
  if (resolution instanceof Promise) return accept(await resolution, Date.now(), clientAddress);
  return accept(resolution, Date.now(), clientAddress);
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
  recordLastUsed(actor.key.id);
  return actor;
}
