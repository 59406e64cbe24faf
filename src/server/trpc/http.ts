import "server-only";
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { SessionActor } from "@/server/auth/actor";
import { DomainError } from "@/server/errors";
import { log } from "@/server/log";
import { appRouter } from "./root";

// The tRPC endpoint over HTTP. Only the console's own pages may send it mutations: a POST must come
// from this site (Sec-Fetch-Site, or else an Origin naming this host), so another site cannot use
// a signed-in admin's cookie to change anything. Queries go over GET and change nothing.

const TRPC_ENDPOINT = "/api/trpc";

/** Whether a request provably comes from a page of this site. */
export function isSameSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = request.headers.get("origin");
  if (origin === null) return site === "same-origin";
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}

export function handleTRPCRequest(request: Request, sessionActor: () => Promise<SessionActor | null>): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: request,
    router: appRouter,
    async createContext() {
      if (request.method !== "GET" && !isSameSite(request)) {
        const refusal = new DomainError("forbidden", "Cross-site requests cannot change anything here.");
        throw new TRPCError({ code: "FORBIDDEN", message: refusal.message, cause: refusal });
      }
      return { actor: await sessionActor() };
    },
    // Console data is per user, and a created key's answer holds the raw key: never cache.
    responseMeta: () => ({ headers: new Headers({ "Cache-Control": "no-store" }) }),
    onError({ error, path }) {
      if (error.code !== "INTERNAL_SERVER_ERROR") return;
      const cause = error.cause ?? error;
      log.error("unhandled error", { path: path ?? null, error: { name: cause.name, message: cause.message, stack: cause.stack } });
    },
  });
}
