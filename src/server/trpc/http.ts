import "server-only";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { SessionActor } from "@/server/auth/actor";
import { requestFactsOf } from "@/server/http/client";
import { log } from "@/server/log";
import { requireSameOriginWrite } from "@/server/auth/same-origin";
import { toTRPCError } from "./init";
import { appRouter } from "./root";

// The tRPC endpoint over HTTP. Only the console's own pages may send it a POST (a mutation): see
// src/server/auth/same-origin.ts. Queries go over GET and change nothing; one whose input would not
// fit in a URL (the settings check carries a whole schema) may come as a POST, held to the same rule.

const TRPC_ENDPOINT = "/api/trpc";

export function handleTRPCRequest(
  request: Request,
  sessionActor: () => Promise<SessionActor | null>,
): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: request,
    router: appRouter,
    allowMethodOverride: true,
    async createContext() {
      try {
        requireSameOriginWrite(request);
      } catch (refusal) {
        throw toTRPCError(refusal);
      }
      return { actor: await sessionActor(), request: requestFactsOf(request) };
    },
    // Console data is per user, and a created key's answer holds the raw key: never cache.
    responseMeta: () => ({ headers: new Headers({ "Cache-Control": "no-store" }) }),
    onError({ error, path }) {
      if (error.code !== "INTERNAL_SERVER_ERROR") return;
      const cause = error.cause ?? error;
      log.error("unhandled error", {
        path: path ?? null,
        error: { name: cause.name, message: cause.message, stack: cause.stack },
      });
    },
  });
}
