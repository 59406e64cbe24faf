import "server-only";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { SessionActor } from "@/server/auth/actor";
import { requestFactsOf } from "@/server/http/client";
import { log } from "@/server/log";
import { BODY_LIMIT_BYTES, bodyTooLarge } from "@/server/http/body-limit";
import { requireSameOriginWrite } from "@/server/auth/same-origin";
import { toTRPCError } from "./init";
import { appRouter } from "./root";
import { OPERATION_GROUPS } from "@/server/operations";
import { inServerSpan, type ServerSpanOf } from "@/server/tracing/spans";

// The tRPC endpoint over HTTP. Only the console's own pages may send it a POST (a mutation): see
// src/server/auth/same-origin.ts. Queries go over GET and change nothing; one whose input would not
// fit in a URL (the settings check carries a whole schema) may come as a POST, held to the same rule.

const TRPC_ENDPOINT = "/api/trpc";

/**
 * The request with its body cut off past the REST door's limit: tRPC's fetch adapter would read a
 * body of any size into memory. Past the limit the read fails with 413 `payload_too_large`.
 */
function withBodyLimit(request: Request): Request {
  if (!request.body) return request;
  let size = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size <= BODY_LIMIT_BYTES) controller.enqueue(chunk);
      else controller.error(toTRPCError(bodyTooLarge()));
    },
  });
  // Built from the request's parts: the route hands over Next's own Request subclass, which the
  // runtime's Request constructor cannot copy.
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: request.body.pipeThrough(limit),
    duplex: "half",
  } as RequestInit);
}

/** Every procedure's name (`group.name`): what a span may repeat of a tRPC path. */
const PROCEDURES: ReadonlySet<string> = new Set(
  Object.entries(OPERATION_GROUPS).flatMap(([group, operations]) =>
    Object.keys(operations).map((name) => `${group}.${name}`),
  ),
);

/** A tRPC request's span: named by the procedures it calls (a batch calls several), any other name left out. */
const spanOf =
  (request: Request): ServerSpanOf =>
  () => {
    const procedures = new URL(request.url).pathname
      .slice(TRPC_ENDPOINT.length + 1)
      .split(",")
      .map((name) => (PROCEDURES.has(name) ? name : "unknown"))
      .join(",");
    return {
      name: `${request.method} ${TRPC_ENDPOINT}/${procedures}`,
      attributes: {
        "http.request.method": request.method,
        "http.route": `${TRPC_ENDPOINT}/{procedures}`,
        "rpc.system": "trpc",
        "rpc.method": procedures,
        // The front door has put a sane id here, and answers it in X-Request-Id.
        "svc.request_id": request.headers.get("x-request-id") ?? "",
      },
    };
  };

/** A console request in its server span. */
export function handleTRPCRequest(
  request: Request,
  sessionActor: () => Promise<SessionActor | null>,
): Promise<Response> {
  return inServerSpan(request.headers, spanOf(request), () => servedByTRPC(request, sessionActor));
}

function servedByTRPC(request: Request, sessionActor: () => Promise<SessionActor | null>): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: withBodyLimit(request),
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
