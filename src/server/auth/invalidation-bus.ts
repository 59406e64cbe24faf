import "server-only";
import { processState } from "@/server/process-state";

// The in-process side of cross-process invalidation: who listens for invalidations here, and the
// message that carries one between processes (a PostgreSQL notification or a Redis message).

export const CHANNEL = "svc_auth_invalidate";

export type Invalidation = { keyId: string } | { userId: string } | { all: true };

/** A message a process sends itself at start, to learn whether its route carries messages at all. */
export type Probe = { probe: string };

export type InvalidationListener = (event: Invalidation) => void;
// Once per process: a route started in one server chunk must reach the caches of every other.
const listeners = processState("invalidationListeners", () => new Set());

export function onInvalidation(listener: InvalidationListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Applies an invalidation in this process (call after the change is committed). */
export function invalidateLocally(event: Invalidation): void {
  for (const listener of listeners) listener(event);
}

/** The message's payload; sent by pg_notify inside the changing transaction, so others hear it on commit. */
export const notifyPayload = (event: Invalidation | Probe): string => JSON.stringify(event);

/** A received payload: a probe's token, or else the invalidation to apply (everything, when unreadable). */
export function receivedPayload(payload: string | undefined): { probe: string } | { event: Invalidation } {
  try {
    const parsed = JSON.parse(payload ?? "") as Partial<Probe> & object;
    if (typeof parsed.probe === "string") return { probe: parsed.probe };
    if ("keyId" in parsed || "userId" in parsed || "all" in parsed) return { event: parsed as Invalidation };
  } catch {
    // unreadable: forget everything below
  }
  return { event: { all: true } };
}
