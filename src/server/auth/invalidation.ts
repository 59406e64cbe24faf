import "server-only";
import pg from "pg";
import { connectionSettings } from "@/server/db/client";
import { env } from "@/server/env";
import { onShutdown } from "@/server/lifecycle";
import { log } from "@/server/log";

// Cross-process invalidation of cached authentication state. A revoke, a deleted user or a changed
// grant is applied to this process's caches at once and announced on a PostgreSQL channel, which
// every other process of the deployment LISTENs to: no polling per request.
//
// The LISTEN connection looks after itself: a heartbeat notices a connection that went silent, and
// a lost one is replaced, retrying with backoff until the database answers again. While it is down
// this process hears nothing, so caches are not to be trusted (listeningForInvalidations() says
// so): everything is forgotten when the connection is lost and again once it is back, since what
// was announced in between is lost.

export const CHANNEL = "svc_auth_invalidate";

export type Invalidation = { keyId: string } | { userId: string } | { all: true };

type Listener = (event: Invalidation) => void;
const listeners = new Set<Listener>();

export function onInvalidation(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Applies an invalidation in this process (call after the change is committed). */
export function invalidateLocally(event: Invalidation): void {
  for (const listener of listeners) listener(event);
}

/** The pg_notify payload; sent inside the changing transaction, so others hear it on commit. */
export const notifyPayload = (event: Invalidation): string => JSON.stringify(event);

const HEARTBEAT_MS = 5_000;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 2_000;

interface Subscription {
  url: string;
  /** The connection now listening, if any. */
  client?: pg.Client;
  heartbeat?: NodeJS.Timeout;
  retry?: NodeJS.Timeout;
  failures: number;
  stopped: boolean;
}

let subscription: Subscription | undefined;

/** Whether this process hears invalidations now: only then may authentication state be cached. */
export const listeningForInvalidations = (): boolean => subscription?.client !== undefined;

/** Starts listening, once per process (cheap to call on every request); from then on the connection is kept up until stopListening(). */
export function listenForInvalidations(url = env().DATABASE_URL): void {
  if (!url || subscription) return;
  const current: Subscription = { url, failures: 0, stopped: false };
  subscription = current;
  onShutdown("close", stopListening);
  void connect(current);
}

async function connect(sub: Subscription): Promise<void> {
  const client = new pg.Client({ connectionString: sub.url, ...connectionSettings() });
  let lost = false;
  const onLost = (error: Error) => {
    if (lost) return;
    lost = true;
    clearInterval(sub.heartbeat);
    const wasListening = sub.client === client;
    sub.client = undefined;
    client.removeAllListeners("notification");
    client.on("error", () => undefined);
    client.connection.stream.destroy();
    if (sub.stopped) return;
    if (wasListening || sub.failures === 0)
      log.warn("auth invalidation listener lost its connection; caches are not trusted until it is back", {
        error: error.message,
      });
    invalidateLocally({ all: true });
    sub.failures += 1;
    const wait = Math.min(RETRY_FIRST_MS * 2 ** (sub.failures - 1), RETRY_MAX_MS);
    sub.retry = setTimeout(() => void connect(sub), wait * (0.75 + Math.random() * 0.5)).unref();
  };
  client.on("error", onLost);
  client.on("end", () => onLost(new Error("connection ended")));
  client.on("notification", (message) => {
    try {
      invalidateLocally(JSON.parse(message.payload ?? "") as Invalidation);
    } catch {
      invalidateLocally({ all: true });
    }
  });
  try {
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
  } catch (error) {
    return onLost(error as Error);
  }
  if (lost || sub.stopped) return void client.end().catch(() => undefined);
  if (sub.failures > 0) log.info("auth invalidation listener is back");
  sub.failures = 0;
  sub.client = client;
  // Whatever was cached while nobody listened may have been revoked meanwhile.
  invalidateLocally({ all: true });
  // A silent connection (a server or network that stopped answering) raises no error by itself:
  // a query that gets no answer within query_timeout does.
  sub.heartbeat = setInterval(() => void client.query("SELECT 1").catch(onLost), HEARTBEAT_MS).unref();
}

export async function stopListening(): Promise<void> {
  const sub = subscription;
  subscription = undefined;
  if (!sub) return;
  sub.stopped = true;
  clearTimeout(sub.retry);
  clearInterval(sub.heartbeat);
  const client = sub.client;
  sub.client = undefined;
  await client?.end().catch(() => undefined);
}
