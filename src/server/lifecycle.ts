import "server-only";
import { processState } from "@/server/process-state";

// The process's shutdown as the app's own server (scripts/server.mjs) runs it: on SIGTERM the process
// is marked draining (readiness turns 503), requests in flight finish, then the hooks modules
// registered here run by phase: "stop" (work begun outside a request, such as queued jobs, is
// finished and no more is taken), "flush" (pending best-effort writes), "close" (connections). A
// phase starts once the one before it has ended, so nothing still at work finds its database
// closed. The server shares this process-state entry, which it makes before Next.js loads.
// See docs/decisions/001-own-http-server.md.

export type ShutdownPhase = "stop" | "flush" | "close";

export interface Lifecycle {
  draining: boolean;
  hooks: Record<ShutdownPhase, Set<() => Promise<unknown>>>;
}

const lifecycle = (): Lifecycle =>
  processState("lifecycle", () => ({
    draining: false,
    hooks: { stop: new Set(), flush: new Set(), close: new Set() },
  }));

/** Whether the process is shutting down: it finishes what it has, and should get nothing new. */
export const draining = (): boolean => lifecycle().draining;

/** Runs `hook` at shutdown, in its phase, after requests in flight have finished. */
export function onShutdown(phase: ShutdownPhase, hook: () => Promise<unknown>): void {
  lifecycle().hooks[phase].add(hook);
}
