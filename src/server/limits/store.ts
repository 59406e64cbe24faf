import "server-only";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "@/server/env";
import { onShutdown } from "@/server/lifecycle";
import { log } from "@/server/log";
import { processState } from "@/server/process-state";

// Where rate-limit counters live: in Redis when REDIS_URL is set, so a limit holds across replicas,
// else in this process. Each Redis limiter keeps an in-memory twin that counts alone while Redis
// cannot be reached, so an outage neither refuses nor lets through everything. Large limits are
// taken from Redis a block at a time (`leasing`). See docs/decisions/004-rate-limit-blocks.md.

interface LimiterSpec {
  /** Names the counters: limiters of one name share them (in Redis, across replicas). */
  name: string;
  /** Requests (points) allowed per window. */
  points: number;
  windowSeconds: number;
}

/** A limiter's answer for one key: allowed or not, and where its window stands. */
export interface LimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Until the window resets (ms, at least 1 s when refused). */
  resetMs: number;
}

/** Where counts go now: this process ("memory"), Redis, or this process while Redis is away ("insurance"). */
type LimiterBackend = "memory" | "redis" | "insurance";

export interface LimiterStore {
  backend(): LimiterBackend;
  limiter(spec: LimiterSpec): Limiter;
  close(): Promise<void>;
}

export interface Limiter {
  readonly spec: LimiterSpec;
  /** Counts `points` against `key` and says whether that was within the limit. */
  consume(key: string, points?: number): Promise<LimitState>;
  /** Where `key` stands, without counting anything. */
  peek(key: string): Promise<LimitState>;
  /** Forgets `key`'s count. */
  reset(key: string): Promise<void>;
}

// A command to Redis that takes longer than this is given up, and the insurance limiter answers
// instead: Redis on the local network answers in a fraction of a millisecond.
const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_SOCKET_TIMEOUT_MS = 1_000;
const REDIS_CONNECT_TIMEOUT_MS = 1_000;
const REDIS_RETRY_MAX_MS = 2_000;

function stateOf(spec: LimiterSpec, res: RateLimiterRes | null, allowed: boolean): LimitState {
  const consumed = res?.consumedPoints ?? 0;
  // A counter in its last millisecond resets now (Redis's PTTL reads 0), not a whole window later.
  const resetMs = res ? Math.max(0, res.msBeforeNext) : spec.windowSeconds * 1000;
  return {
    allowed,
    limit: spec.points,
    remaining: Math.max(0, spec.points - consumed),
    resetMs: allowed ? resetMs : Math.max(1_000, resetMs),
  };
}

function wrap(spec: LimiterSpec, limiter: RateLimiterAbstract): Limiter {
  return {
    spec,
    // Chained rather than awaited: every request with a key comes through here, and each extra
    // promise costs it (the async context is carried through every one).
    consume: (key, points = 1) =>
      limiter.consume(key, points).then(
        (res) => stateOf(spec, res, true),
        (refusal: unknown) => {
          // rate-limiter-flexible refuses with a RateLimiterRes; anything else is a fault.
          if (refusal instanceof RateLimiterRes) return stateOf(spec, refusal, false);
          throw refusal;
        },
      ),
    async peek(key) {
      // A window that has ended counts nothing, though Redis may still hold its counter for the
      // last millisecond and memory holds it until its timer runs (later on a busy process).
      const read = await limiter.get(key);
      const res = read && read.msBeforeNext > 0 ? read : null;
      return stateOf(spec, res, (res?.consumedPoints ?? 0) <= spec.points);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

// A replica takes a key's points from Redis a block at a time and hands them out from memory, so
// requests do not each wait for Redis; points are counted in Redis first, so no limit is exceeded
// across replicas. A block is at most 1/LEASE_SHARE of the limit (LEASE_MAX at most) and
// 1/LEASE_OF_REMAINING of what the window has left; a limit under 2 × LEASE_SHARE is counted request
// by request. See docs/decisions/004-rate-limit-blocks.md.
const LEASE_SHARE = 100;
const LEASE_MAX = 100;
const LEASE_OF_REMAINING = 8;
const LEASED_KEYS_MAX = 50_000;
// After the latest a window can end (reckoned from when Redis's answer arrived).
const TURN_DELAY_MS = 10;

interface Lease {
  /** Points taken from Redis and not yet handed out. */
  left: number;
  /** Points left in Redis after the last block was taken. */
  remaining: number;
  /** When the window of the points held ends (Date.now() scale; reckoned from when the block was asked for, so never late). */
  windowEndsAt: number;
  /** The latest that window can end (reckoned from when its answers arrived). */
  windowEndsBy: number;
  /** Counts the windows this lease has held points of. */
  window: number;
  /** The next block, while it is being taken. */
  next?: Promise<void>;
  /** Takes the next window's first block as the window turns. */
  turn?: NodeJS.Timeout;
}

const blockSize = (spec: LimiterSpec, remaining: number) =>
  Math.max(1, Math.min(LEASE_MAX, Math.floor(spec.points / LEASE_SHARE), Math.floor(remaining / LEASE_OF_REMAINING)));

/** `plain` (which counts each call in Redis), counting in blocks when the limit is large enough. */
function leasing(plain: Limiter, limiter: RateLimiterAbstract): Limiter {
  const { spec } = plain;
  if (spec.points < 2 * LEASE_SHARE) return plain;
  const leases = new LRUCache<string, Lease>({ max: LEASED_KEYS_MAX, dispose: (lease) => clearTimeout(lease.turn) });

  // Takes the next block of `key`'s points from Redis into `lease`.
  function takeBlock(key: string, lease: Lease): Promise<void> {
    const sentAt = Date.now();
    const block = blockSize(spec, lease.windowEndsAt > sentAt ? lease.remaining : spec.points);
    const taken = (fitted: number, remaining: number, msBeforeNext: number) => {
      // From when the block was asked for: its points are never thought to outlive their window.
      const windowEndsAt = sentAt + msBeforeNext;
      // The points still held belong to the window the answer is from only if it ends when theirs
      // does (a window that began meanwhile ends about a whole window later): older ones are dropped.
      const sameWindow = windowEndsAt < lease.windowEndsAt + (spec.windowSeconds * 1000) / 2;
      lease.left = (sameWindow ? lease.left : 0) + fitted;
      lease.remaining = remaining;
      lease.windowEndsAt = windowEndsAt;
      const endsBy = Date.now() + msBeforeNext;
      if (sameWindow) {
        lease.windowEndsBy = Math.max(lease.windowEndsBy, endsBy);
      } else {
        lease.windowEndsBy = endsBy;
        lease.window += 1;
        clearTimeout(lease.turn);
        lease.turn = undefined;
      }
    };
    const next = limiter.consume(key, block).then(
      (res) => taken(block, Math.max(0, spec.points - res.consumedPoints), res.msBeforeNext),
      (refusal: unknown) => {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        // Over the limit, the block may have fitted in part: those points are this replica's. (A
        // refusal from the in-memory block reports nothing consumed, and grants nothing.)
        const over = refusal.consumedPoints - spec.points;
        taken(over > 0 ? Math.max(0, block - over) : 0, 0, refusal.msBeforeNext);
      },
    );
    lease.next = next;
    const settled = () => {
      if (lease.next === next) lease.next = undefined;
    };
    next.then(settled, settled);
    return next;
  }

  // Takes the next window's first block once `lease`'s window has ended: after the latest it can
  // end, and after a block in flight has landed (it may be the old window's, and end it later).
  // Not once the next window's points are held (a request asked for them first), nor for a key
  // that left the cache.
  function armTurn(key: string, lease: Lease): NodeJS.Timeout {
    const window = lease.window;
    const fire = () => {
      lease.turn = undefined;
      turn();
    };
    const turn = () => {
      if (leases.peek(key) !== lease || lease.window !== window) return;
      const now = Date.now();
      if (lease.next) void lease.next.then(turn, turn);
      else if (lease.windowEndsBy > now)
        lease.turn ??= setTimeout(fire, lease.windowEndsBy - now + TURN_DELAY_MS).unref();
      else takeBlock(key, lease).catch(() => {});
    };
    return setTimeout(fire, Math.max(0, lease.windowEndsBy - Date.now()) + TURN_DELAY_MS).unref();
  }

  // One of the points held, for a request at `at`.
  function handOut(key: string, lease: Lease, at: number): LimitState {
    lease.left -= 1;
    if (!lease.turn && leases.peek(key) === lease) lease.turn = armTurn(key, lease);
    return {
      allowed: true,
      limit: spec.points,
      remaining: lease.remaining + lease.left,
      resetMs: Math.max(0, lease.windowEndsAt - at),
    };
  }

  // `retries`: how many more times to ask when refused by a window that ended as it answered.
  function consume(key: string, retries = 2): Promise<LimitState> {
    let lease = leases.get(key);
    if (!lease) {
      lease = { left: 0, remaining: spec.points, windowEndsAt: 0, windowEndsBy: 0, window: 0 };
      leases.set(key, lease);
    }
    const now = Date.now();
    if (lease.left > 0 && lease.windowEndsAt > now) {
      const state = handOut(key, lease, now);
      if (!lease.next && lease.left * 2 < blockSize(spec, lease.remaining)) takeBlock(key, lease).catch(() => {});
      return Promise.resolve(state);
    }
    const current = lease;
    return (current.next ?? takeBlock(key, current)).then(() => {
      const at = Date.now();
      // A point just counted in Redis is this request's, even if its window ended meanwhile.
      if (current.left > 0) return handOut(key, current, at);
      // More requests waited for the block than it held: take another.
      if (current.remaining > 0 && current.windowEndsAt > at) return consume(key, retries);
      // Refused by a window that has ended since: ask the next one.
      if (current.windowEndsAt <= at && retries > 0) return consume(key, retries - 1);
      return { allowed: false, limit: spec.points, remaining: 0, resetMs: Math.max(1_000, current.windowEndsAt - at) };
    });
  }

  return {
    spec,
    consume: (key, points = 1) => (points === 1 ? consume(key) : plain.consume(key, points)),
    peek: (key) => plain.peek(key),
    async reset(key) {
      leases.delete(key);
      await plain.reset(key);
    },
  };
}

function memoryLimiter(spec: LimiterSpec, keyPrefix: string): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix, points: spec.points, duration: spec.windowSeconds });
}

/**
 * A store of limiters: Redis-backed (with in-memory insurance) when `redisUrl` is given, else in
 * memory. `prefix` starts every Redis key, so several deployments can share one Redis.
 */
export function createLimiterStore(options: { redisUrl?: string; prefix?: string } = {}): LimiterStore {
  const prefix = options.prefix ?? "svc:";
  const { redisUrl } = options;
  if (!redisUrl) {
    return {
      backend: () => "memory",
      limiter: (spec) => wrap(spec, memoryLimiter(spec, `${prefix}${spec.name}`)),
      close: async () => {},
    };
  }
  const redis = new Redis(redisUrl, {
    // Fail at once while disconnected (the insurance limiter answers) rather than queue commands.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // A connection that stops answering is dropped, so the next requests go to the insurance
    // limiter at once instead of each waiting out its command timeout.
    socketTimeout: REDIS_SOCKET_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, REDIS_RETRY_MAX_MS),
    keepAlive: 10_000,
    // The counts of requests arriving together go out as one write, answered as one read.
    enableAutoPipelining: true,
  });
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    log.warn("rate limits fall back to per-process counting: Redis does not answer", { error: error.message });
  });
  redis.on("ready", () => {
    if (down) log.info("rate limits are shared through Redis again");
    down = false;
  });
  return {
    backend: () => (redis.status === "ready" ? "redis" : "insurance"),
    limiter(spec) {
      const keyPrefix = `${prefix}rl:${spec.name}`;
      const limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix,
        points: spec.points,
        duration: spec.windowSeconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memoryLimiter(spec, keyPrefix),
        // A key over its limit is refused from memory until its window ends: no Redis round trip
        // for the requests of a client that keeps knocking.
        inMemoryBlockOnConsumed: spec.points + 1,
      });
      return leasing(wrap(spec, limiter), limiter);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

const shared = processState("limiterStore", () => ({}));

/** The process's store: REDIS_URL and REDIS_KEY_PREFIX from the environment. */
export function limiterStore(): LimiterStore {
  const { REDIS_URL, REDIS_KEY_PREFIX } = env();
  if (!shared.open) {
    shared.open = createLimiterStore({ redisUrl: REDIS_URL, prefix: REDIS_KEY_PREFIX });
    onShutdown("close", closeLimiterStore);
  }
  return shared.open;
}

/** Closes the process's store (its Redis connection), at shutdown. */
async function closeLimiterStore(): Promise<void> {
  const store = shared.open;
  shared.open = undefined;
  await store?.close();
}
