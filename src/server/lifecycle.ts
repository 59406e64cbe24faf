import "server-only";

// The process's life as the app's own server (scripts/server.mjs) runs it. On SIGTERM the server
// marks the process as draining (readiness turns 503 at once), lets requests in flight finish,
// then runs what server modules registered here: first the "flush" phase (best-effort writes
// still pending), then "close" (connections). Shared through globalThis under a registered
// symbol, which the server reads too: Next.js bundles server modules into several chunks, and the
// server itself is outside them.

export type ShutdownPhase = "flush" | "close";

interface Lifecycle {
  draining: boolean;
  hooks: Record<ShutdownPhase, Set<() => Promise<unknown>>>;
}

const LIFECYCLE = Symbol.for("svc.lifecycle");

function lifecycle(): Lifecycle {
  const global = globalThis as unknown as Record<symbol, Lifecycle | undefined>;
  return (global[LIFECYCLE] ??= { draining: false, hooks: { flush: new Set(), close: new Set() } });
}

/** Whether the process is shutting down: it finishes what it has, and should get nothing new. */
export const draining = (): boolean => lifecycle().draining;

/** Runs `hook` at shutdown, in its phase, after requests in flight have finished. */
export function onShutdown(phase: ShutdownPhase, hook: () => Promise<unknown>): void {
  lifecycle().hooks[phase].add(hook);
}
