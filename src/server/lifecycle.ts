import "server-only";
import { processState } from "@/server/process-state";

// The process's life as the app's own server (scripts/server.mjs) runs it. On SIGTERM the server
// marks the process as draining (readiness turns 503 at once), lets requests in flight finish,
// then runs what server modules registered here: first the "flush" phase (best-effort writes
// still pending), then "close" (connections). The server reads the same entry of the process
// state (process-state.ts), which it makes itself before Next.js loads.

export type ShutdownPhase = "flush" | "close";

export interface Lifecycle {
  draining: boolean;
  hooks: Record<ShutdownPhase, Set<() => Promise<unknown>>>;
}

const lifecycle = (): Lifecycle =>
  processState("lifecycle", () => ({ draining: false, hooks: { flush: new Set(), close: new Set() } }));

/** Whether the process is shutting down: it finishes what it has, and should get nothing new. */
export const draining = (): boolean => lifecycle().draining;

/** Runs `hook` at shutdown, in its phase, after requests in flight have finished. */
export function onShutdown(phase: ShutdownPhase, hook: () => Promise<unknown>): void {
  lifecycle().hooks[phase].add(hook);
}
