import "server-only";
import pg from "pg";
import { env } from "@/server/env";
import { log } from "@/server/log";

// Cross-process invalidation of cached authentication state. A revoke, a deleted user or a changed
// grant is applied to this process's caches at once and announced on a PostgreSQL channel, which
// every other process of the deployment LISTENs to: no polling per request.

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

let subscriber: pg.Client | undefined;
let starting: Promise<void> | undefined;

/** Whether this process listens (or is starting to): a check cheap enough for every request. */
export const listeningForInvalidations = (): boolean => subscriber !== undefined || starting !== undefined;

/** Starts listening (once per process). Reconnects with a fresh full invalidation if dropped. */
export function listenForInvalidations(url = env().DATABASE_URL): Promise<void> {
  if (!url || subscriber) return Promise.resolve();
  starting ??= (async () => {
    const client = new pg.Client({ connectionString: url });
    client.on("notification", (message) => {
      try {
        invalidateLocally(JSON.parse(message.payload ?? "") as Invalidation);
      } catch {
        invalidateLocally({ all: true });
      }
    });
    client.on("error", (error) => {
      log.warn("auth invalidation listener lost its connection", { error: error.message });
      subscriber = undefined;
      starting = undefined;
      // Whatever was announced meanwhile is lost: forget everything, then listen again.
      invalidateLocally({ all: true });
      setTimeout(() => void listenForInvalidations(url).catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    subscriber = client;
  })().catch((error: unknown) => {
    starting = undefined;
    throw error;
  });
  return starting;
}

/** Starts listening unless this process already does (or is starting to): cheap on every request. */
export function ensureListening(): void {
  if (listeningForInvalidations()) return;
  void listenForInvalidations().catch((error: unknown) => log.warn("cannot listen for auth invalidations", { error: (error as Error).message }));
}

export async function stopListening(): Promise<void> {
  const client = subscriber;
  subscriber = undefined;
  starting = undefined;
  await client?.end().catch(() => undefined);
}
