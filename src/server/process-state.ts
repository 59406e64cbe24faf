import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { InvalidationRoutes } from "@/server/auth/invalidation";
import type { Invalidation, InvalidationListener } from "@/server/auth/invalidation-bus";
import type { SignInThrottle } from "@/server/auth/sign-in-throttle";
import type { SsoTicket } from "@/server/session/sso";
import type { BaseClient, Pooled } from "@/server/db/client";
import type { QueueState } from "@/server/jobs/queue";
import type { Lifecycle } from "@/server/lifecycle";
import type { CreditLeases } from "@/server/limits/credits";
import type { Limiter, LimiterStore } from "@/server/limits/store";
import type { Metrics } from "@/server/metrics";
import type { DeliveryJob, Subscriber } from "@/server/services/webhooks/outbox";

// State a server process must hold once (caches, connections, the job queue). Next.js bundles a
// server module into several chunks, each with its own module-level variables, so this state lives
// in one globalThis slot under a registered symbol, which scripts/server.mjs (plain JavaScript)
// reaches too. Declare an entry in ProcessState; `processState("name", () => initialValue)` then
// returns the first value made, from any chunk and after a hot reload.

/** Every entry kept per process, by name. */
interface ProcessState {
  /** The draining flag and shutdown hooks (lifecycle.ts); scripts/server.mjs makes it when it runs the app. */
  lifecycle: Lifecycle;
  /** Called by scripts/server.mjs on each request before Next.js (rest/front-door.ts). */
  frontDoor: (request: IncomingMessage, response: ServerResponse) => boolean;
  metrics: Metrics;
  /** The rate-limit counters' store, while open (closed at shutdown). */
  limiterStore: { open?: LimiterStore };
  /** The limiter of failed authentications per client address; null when that limit is off. */
  authFailureLimiter: Limiter | null;
  /** The limiter of each route limited per client address, by the route's name. */
  addressLimiters: Map<string, Limiter>;
  invitationLimiter: { limiter?: Limiter };
  /** Keys' credits this process holds, by the key whose balance they came from (limits/credits.ts). */
  creditLeases: CreditLeases;
  signInThrottle: SignInThrottle;
  /** SSO sign-ins handed from the protocol's callback to Auth.js in the same request (session/sso.ts). */
  ssoTickets: Map<string, SsoTicket>;
  /** Which SSO connections enforce, per organization, as last read (auth/sso-enforcement.ts). */
  ssoEnforcement: { read?: { at: number; enforced: Promise<ReadonlyMap<string, ReadonlySet<string>>> } };
  /** Whatever caches authentication state in this process, told of each invalidation. */
  invalidationListeners: Set<InvalidationListener>;
  /** The routes invalidations arrive by, once listening; the changes a CLI command is to publish. */
  invalidations: { routes?: InvalidationRoutes; committed?: Invalidation[] };
  /** The job queue, once started. */
  jobQueue: { started?: Promise<QueueState> };
  /** The webhook endpoints enabled, as last read, and the read in flight. */
  webhookSubscribers: { read?: { at: number; list: Subscriber[] }; reading?: Promise<Subscriber[]> };
  /** Delivery jobs of committed changes waiting for their INSERT, and the relay inserting them. */
  deliveryRelay: { waiting?: DeliveryJob[]; relaying?: Promise<void> };
  /** The process-wide Prisma client for DATABASE_URL, once made (db/client.ts). */
  baseClient: { current?: BaseClient };
  /** Each client's node-postgres pool and how it names statements. */
  pools: WeakMap<BaseClient, Pooled>;
  /** The names given to prepared statements, by their SQL. */
  statementNames: Map<string, string>;
  /** The servers (host:port) found to be transaction poolers (db/pooler.ts). */
  poolers: Set<string>;
  /** Whether this process exports spans (tracing/start.ts). */
  tracing: { on: boolean };
  /** Every coalescing writer of last-used times, for the backlog metric (db/bookkeeping.ts). */
  touches: Set<{ backlog: number }>;
}

const SLOT = Symbol.for("svc.process-state");

const entries: Partial<ProcessState> = ((globalThis as unknown as Record<symbol, Partial<ProcessState> | undefined>)[
  SLOT
] ??= {});

/** The process's entry `key`, made by `create` on the first call in the process. */
export function processState<K extends keyof ProcessState>(key: K, create: () => ProcessState[K]): ProcessState[K] {
  let value = entries[key];
  if (value === undefined) entries[key] = value = create();
  return value as ProcessState[K];
}
