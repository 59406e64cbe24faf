import "server-only";
import { env } from "@/server/env";
import { isEmbeddedAddress } from "@/server/db/embedded-marker";
import { behindPooler } from "@/server/db/pooler";
import { onShutdown } from "@/server/lifecycle";
import { log } from "@/server/log";
import { processState } from "@/server/process-state";
import { invalidateLocally, type Invalidation } from "./invalidation-bus";
import { listenOnPostgres, type PostgresRoute } from "./invalidation-postgres";
import { listenOnRedis, publishOnRedis, type RedisRoute } from "./invalidation-redis";

export { CHANNEL, notifyPayload, onInvalidation, type Invalidation } from "./invalidation-bus";

// Keeps cached authentication state (keys, grants, accounts) right across processes: a change is
// applied to this process's caches at once and announced to the others through PostgreSQL
// (pg_notify, received by LISTEN) and, with REDIS_URL, Redis pub/sub. A process that receives them
// "hears"; one that can receive neither says so and caches for at most UNHEARD_CACHE_MS. See
// docs/decisions/008-key-cache-and-invalidation.md and docs/decisions/040-timeouts-behind-a-pooler.md.

/** How long a process that cannot hear other processes keeps a cached key, grant or account. */
export const UNHEARD_CACHE_MS = 5_000;

export type InvalidationRoute = "postgres" | "redis" | "none" | "starting";

export interface InvalidationRoutes {
  postgres?: PostgresRoute;
  redis?: RedisRoute;
  /** PostgreSQL cannot carry invalidations here (a pooler, or the probe never came back). */
  postgresDeaf: boolean;
}

// Once per process: every server chunk's caches must hear the one set of routes.
const shared = processState("invalidations", () => ({}));

/** Starts listening, once per process (cheap to call on every request); from then on until stopListening(). */
export function listenForInvalidations(url?: string): void {
  if (shared.routes) return;
  const { DATABASE_URL, DATABASE_DIRECT_URL, REDIS_URL, REDIS_KEY_PREFIX } = env();
  const listenUrl = url ?? DATABASE_DIRECT_URL ?? DATABASE_URL;
  if (!listenUrl) return;
  const routes: InvalidationRoutes = { postgresDeaf: false };
  shared.routes = routes;
  onShutdown("close", stopListening);
  if (REDIS_URL) routes.redis = listenOnRedis(REDIS_URL, REDIS_KEY_PREFIX);
  const deaf = () => {
    routes.postgresDeaf = true;
    routes.postgres = undefined;
    if (routes.redis) log.info("auth invalidations travel through Redis (PostgreSQL cannot carry them here)");
    else {
      const { level, message } = unheard(isEmbeddedAddress(listenUrl, env().SVC_DATA_DIR));
      log[level](message);
    }
  };
  // A LISTEN through the pooler this process already met would be lost with its transaction.
  if (listenUrl === DATABASE_URL && behindPooler(DATABASE_URL)) deaf();
  else routes.postgres = listenOnPostgres(listenUrl, DATABASE_URL ?? listenUrl, deaf);
}

/**
 * What a process that hears no other process says at start. On the embedded database that is as
 * it should be: the app is its one process, and what the CLI changes (a revoked key, a deleted
 * user) reaches it within UNHEARD_CACHE_MS. On a real PostgreSQL it is a setup to fix: replicas
 * each accept for that long what another has revoked.
 */
export function unheard(embedded: boolean): { level: "info" | "warn"; message: string } {
  const seconds = UNHEARD_CACHE_MS / 1000;
  if (embedded)
    return {
      level: "info",
      message: `on the embedded database, changes made by the CLI (npm run svc) reach the app within ${seconds} s: a revoked key, a deleted user or an ended session is refused by then (the database's connections share one session, so they carry no notifications)`,
    };
  return {
    level: "warn",
    message: `this process cannot hear other processes' invalidations (its own notification never came back, as through a transaction pooler: set DATABASE_DIRECT_URL or REDIS_URL): revoked keys, deleted users and ended sessions may be accepted here for up to ${seconds} s`,
  };
}

/** Whether this process hears invalidations now: only then may authentication state be cached at length. */
export const listeningForInvalidations = (): boolean => {
  const routes = shared.routes;
  return !!routes && (routes.postgres?.hearing() === true || routes.redis?.hearing() === true);
};

/**
 * How long this process may keep authentication state it caches now: unbounded while it hears
 * invalidations; UNHEARD_CACHE_MS when no route can ever bring them; nothing while a route that
 * can is down (or not yet up).
 */
export function cacheLifetimeMs(): number {
  if (listeningForInvalidations()) return Infinity;
  const routes = shared.routes;
  return routes?.postgresDeaf && !routes.redis ? UNHEARD_CACHE_MS : 0;
}

/** The route invalidations reach this process by, for /api/ready and the start message. */
export function invalidationRoute(): InvalidationRoute {
  const routes = shared.routes;
  if (!routes) return "starting";
  if (routes.postgres?.verified()) return "postgres";
  if (routes.redis) return "redis";
  return routes.postgresDeaf ? "none" : "starting";
}

/**
 * Applies a committed change in this process and publishes it on Redis when there is one (its
 * pg_notify went out with the transaction).
 */
export function announceCommitted(event: Invalidation): void {
  invalidateLocally(event);
  shared.routes?.redis?.publish(event);
  shared.committed?.push(event);
}

/**
 * For a process that changes access but does not listen (the CLI): runs `work`, then publishes on
 * Redis, when REDIS_URL is set, what it committed. Its pg_notify reaches only the processes that
 * LISTEN on a direct connection; behind a pooler without one, replicas hear through Redis alone.
 */
export async function announcingOnRedis<T>(work: () => Promise<T>): Promise<T> {
  const { REDIS_URL, REDIS_KEY_PREFIX } = env();
  if (!REDIS_URL) return work();
  const committed: Invalidation[] = [];
  shared.committed = committed;
  let result: T;
  try {
    result = await work();
  } finally {
    shared.committed = undefined;
  }
  if (committed.length > 0)
    await publishOnRedis(REDIS_URL, REDIS_KEY_PREFIX, committed).catch((error: Error) => {
      throw new Error(
        `The change is made, but could not be announced on Redis (${error.message}): app processes that hear only through Redis may act on what they cached for minutes; restart them.`,
      );
    });
  return result;
}

export async function stopListening(): Promise<void> {
  const routes = shared.routes;
  shared.routes = undefined;
  await Promise.all([routes?.postgres?.stop(), routes?.redis?.stop()]);
}
