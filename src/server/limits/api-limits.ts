import "server-only";
import ipaddr from "ipaddr.js";
import { LRUCache } from "lru-cache";
import { rateLimitSchema, type RateLimit } from "@/lib/schemas/api-keys";
import { systemActor } from "@/server/auth/actor";
import { onInvalidation } from "@/server/auth/invalidation-bus";
import { env } from "@/server/env";
import { DomainError } from "@/server/errors";
import { metrics } from "@/server/metrics";
import { processState } from "@/server/process-state";
import { consumeCredits, returnCredits, type CreditsSource, type CreditsState } from "./credits";
import { limiterStore, type Limiter, type LimitState } from "./store";

// The API's rate limits: every key-authenticated request counts against its key's limit (the key's
// own, else the platform's default), and failed authentications count against the client's
// address. Over a limit: 429 `rate_limited` with Retry-After.

export const DEFAULT_RATE_LIMIT_SETTING = "api_keys.default_rate_limit";
/** What applies when the platform setting is missing or not a valid limit. */
export const BUILT_IN_DEFAULT_RATE_LIMIT: RateLimit = { requests: 1000, window_seconds: 60 };

/** A stored limit ({requests, window_seconds}), or undefined when the value is not one. */
export const rateLimitOf = (value: unknown): RateLimit | undefined => rateLimitSchema.safeParse(value).data;

// ---------------------------------------------------------------------------------------------
// Per key

// One limiter per distinct limit (keys sharing a limit share its limiter, each key its own count).
const keyLimiters = new LRUCache<string, Limiter>({ max: 10_000 });
// A cached key carries the same limit object on every request: its limiter is found from it
// directly, without spelling the limit's name each time.
const limiterOfLimit = new WeakMap<RateLimit, Limiter>();

function keyLimiter(limit: RateLimit): Limiter {
  let limiter = limiterOfLimit.get(limit);
  if (limiter) return limiter;
  const name = `key:${limit.requests}/${limit.window_seconds}`;
  limiter = keyLimiters.get(name);
  if (!limiter) {
    limiter = limiterStore().limiter({ name, points: limit.requests, windowSeconds: limit.window_seconds });
    keyLimiters.set(name, limiter);
  }
  limiterOfLimit.set(limit, limiter);
  return limiter;
}

type RateLimitFields = Record<"RateLimit-Policy" | "RateLimit", string>;

/**
 * The IETF RateLimit fields of an answer counted against a limit: the policy (`key`, a key's rate
 * limit, or `address`, an operation's calls per client address), and where its window stands.
 */
function rateLimitHeaders(policy: "key" | "address", limit: RateLimit, state: LimitState): RateLimitFields {
  return {
    "RateLimit-Policy": `"${policy}";q=${limit.requests};w=${limit.window_seconds}`,
    RateLimit: `"${policy}";r=${state.remaining};t=${Math.ceil(state.resetMs / 1000)}`,
  };
}

/** A 429 for going over a limit: it carries the limit's RateLimit fields, and when to retry. */
function overLimit(message: string, state: LimitState, headers: RateLimitFields): DomainError {
  return new DomainError("rate_limited", message, {
    retry_after_seconds: Math.ceil(state.resetMs / 1000),
    rate_limit_policy: headers["RateLimit-Policy"],
    rate_limit: headers.RateLimit,
  });
}

/**
 * Counts one request of the key against its limit. Within it: the RateLimit fields to send. Over
 * it: a 429 carrying them and Retry-After.
 */
export function countKeyRequest(keyId: string, limit: RateLimit): Promise<Record<string, string>> {
  return keyLimiter(limit)
    .consume(keyId)
    .then((state) => keyRequestCounted(keyId, limit, state));
}

function keyRequestCounted(keyId: string, limit: RateLimit, state: LimitState): Record<string, string> {
  const headers = rateLimitHeaders("key", limit, state);
  if (!state.allowed) {
    keyOverLimit(keyId);
    throw overLimit(`This key may make ${limit.requests} requests per ${limit.window_seconds} s.`, state, headers);
  }
  return headers;
}

function keyOverLimit(keyId: string): void {
  metrics().rateLimited.inc({ limit: "key" });
  // api_key.rate_limited, for the key's first 429 in the clock hour: off the request's path.
  void Promise.all([import("@/server/services/webhooks/key-events"), import("@/server/db/context")]).then(
    ([events, { readContext }]) => events.keyRateLimited(readContext(systemActor("webhooks")), keyId),
  );
}

/**
 * Where the key's rate limit stands after counting a request of it, as a request is counted (for a
 * key verified on a service's behalf); with `count` false, only where it stands (allowed while a
 * request would be).
 */
export async function keyLimitState(keyId: string, limit: RateLimit, count: boolean): Promise<LimitState> {
  const limiter = keyLimiter(limit);
  if (!count) {
    const state = await limiter.peek(keyId);
    return { ...state, allowed: state.remaining > 0 };
  }
  const state = await limiter.consume(keyId);
  if (!state.allowed) keyOverLimit(keyId);
  return state;
}

// ---------------------------------------------------------------------------------------------
// Credits per key

/** Where a key's credits stand after a request: the Credits-Remaining field of its answer. */
function creditsHeader(state: CreditsState, headers: Record<string, string>): void {
  if (Number.isFinite(state.remaining)) headers["Credits-Remaining"] = String(state.remaining);
}

// The events are sent at most once per balance (a flag on the key, set by a conditional update); a
// key refused a burst of requests asks the database once a few seconds, not once a request. A change
// to the key (a new balance) forgets what was asked.
const recentCreditsEvents = new LRUCache<string, true>({ max: 10_000, ttl: 5_000 });
onInvalidation((event) => {
  if ("all" in event) recentCreditsEvents.clear();
  else if ("keyId" in event)
    for (const kind of ["low", "exhausted"]) recentCreditsEvents.delete(`${event.keyId}:${kind}`);
});

/** api_key.credits_low or api_key.credits_exhausted, off the request's path. */
function creditsEvent(keyId: string, kind: "low" | "exhausted"): void {
  const event = `${keyId}:${kind}`;
  if (recentCreditsEvents.has(event)) return;
  recentCreditsEvents.set(event, true);
  void Promise.all([import("@/server/services/webhooks/key-events"), import("@/server/db/context")]).then(
    ([events, { readContext }]) => events.keyCreditsEvent(readContext(systemActor("webhooks")), keyId, kind),
  );
}

/** The 429 of a key without credits: Retry-After until the next refill, when one is set. */
function creditsExhausted(state: CreditsState): DomainError {
  return new DomainError(
    "credits_exhausted",
    state.retryAfterSeconds === null
      ? "This key has no credits left."
      : "This key has no credits left until its next refill.",
    { retry_after_seconds: state.retryAfterSeconds },
  );
}

/**
 * Spends `cost` of a key's credits (0: only looks), noting the balance in `headers`. Events for a
 * balance that fell low or ran out are sent off the request's path.
 */
export async function spendKeyCredits(
  source: CreditsSource,
  headers: Record<string, string>,
  cost = 1,
): Promise<CreditsState> {
  const state = await consumeCredits(source, cost);
  creditsHeader(state, headers);
  if (state.low) creditsEvent(source.keyId, "low");
  if (!state.allowed && cost > 0) {
    metrics().rateLimited.inc({ limit: "credits" });
    creditsEvent(source.keyId, "exhausted");
  }
  return state;
}

/**
 * Spends one of a key's credits for a request; none left: 429 `credits_exhausted`. Returns what
 * gives the credit back should the request be refused after all.
 */
export async function countKeyCredits(
  source: CreditsSource,
  headers: Record<string, string>,
): Promise<() => Promise<void>> {
  const state = await spendKeyCredits(source, headers);
  if (!state.allowed) throw creditsExhausted(state);
  return async () => {
    creditsHeader({ ...state, remaining: state.remaining + 1 }, headers);
    await returnCredits(source, 1, state);
  };
}

// ---------------------------------------------------------------------------------------------
// Failed authentications per client address

const FAILURE_WINDOW_SECONDS = 60;

/** The limiter of failed authentications, or null when SVC_AUTH_FAILURE_LIMIT is 0. */
const failureLimiter = (): Limiter | null =>
  processState("authFailureLimiter", () => {
    const points = env().SVC_AUTH_FAILURE_LIMIT;
    return points === 0
      ? null
      : limiterStore().limiter({ name: "auth-failures", points, windowSeconds: FAILURE_WINDOW_SECONDS });
  });

/**
 * Whose failures count together: an IPv4 address, or an IPv6 address's /64 (one customer's
 * network: anyone can pick any address inside their own /64).
 */
export function failureCounterKey(address: string): string {
  try {
    const parsed = ipaddr.process(address);
    if (parsed.kind() === "ipv4") return parsed.toString();
    return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
  } catch {
    return address;
  }
}

function tooManyFailures(state: LimitState): DomainError {
  metrics().rateLimited.inc({ limit: "auth_failures" });
  return new DomainError("rate_limited", "Too many failed authentications from this address. Try again later.", {
    retry_after_seconds: Math.ceil(state.resetMs / 1000),
  });
}

/** Counts a failed authentication from `address`; over the limit, throws 429 `rate_limited`. */
export async function countAuthFailure(address: string): Promise<void> {
  const state = await failureLimiter()?.consume(failureCounterKey(address));
  if (state && !state.allowed) throw tooManyFailures(state);
}

/** Throws 429 `rate_limited` while `address` is over its limit of failed authentications. */
export async function refuseWhileOverFailureLimit(address: string): Promise<void> {
  const state = await failureLimiter()?.peek(failureCounterKey(address));
  if (state && !state.allowed) throw tooManyFailures(state);
}

// ---------------------------------------------------------------------------------------------
// Calls per client address, for routes that declare a limit (operations' `addressLimit`)

// One limiter per route, the same whichever server chunk counts (as for failed authentications).
const addressLimiters = processState("addressLimiters", () => new Map());

/**
 * Counts a call of a route limited per address. Within the limit: the RateLimit fields to send.
 * Over it: a 429 carrying them and Retry-After.
 */
export async function countAddressRequest(
  spec: { name: string; requests: number; windowSeconds: number },
  address: string,
): Promise<Record<string, string>> {
  let limiter = addressLimiters.get(spec.name);
  if (!limiter) {
    limiter = limiterStore().limiter({
      name: `address:${spec.name}`,
      points: spec.requests,
      windowSeconds: spec.windowSeconds,
    });
    addressLimiters.set(spec.name, limiter);
  }
  const state = await limiter.consume(failureCounterKey(address));
  const headers = rateLimitHeaders("address", { requests: spec.requests, window_seconds: spec.windowSeconds }, state);
  if (!state.allowed) {
    metrics().rateLimited.inc({ limit: "address" });
    throw overLimit(
      `At most ${spec.requests} calls per ${spec.windowSeconds} s from one address. Try again later.`,
      state,
      headers,
    );
  }
  return headers;
}

// ---------------------------------------------------------------------------------------------
// Invitations per organization

/** Invitations (new or resent) one organization may send per hour. */
const INVITATIONS_PER_HOUR = 100;

const invitationLimiter = processState("invitationLimiter", () => ({}));

/** Counts an invitation sent by `orgId`; over the hour's allowance, 429 `rate_limited`. */
export async function countOrganizationInvitation(orgId: string): Promise<void> {
  invitationLimiter.limiter ??= limiterStore().limiter({
    name: "invitations-per-org",
    points: INVITATIONS_PER_HOUR,
    windowSeconds: 3_600,
  });
  const state = await invitationLimiter.limiter.consume(orgId);
  if (!state.allowed) {
    metrics().rateLimited.inc({ limit: "invitations" });
    throw new DomainError(
      "rate_limited",
      `An organization may send at most ${INVITATIONS_PER_HOUR} invitations an hour. Try again later.`,
      { retry_after_seconds: Math.ceil(state.resetMs / 1000) },
    );
  }
}
