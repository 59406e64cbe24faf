import "server-only";

// Who is calling, as far as the network tells: the client's address, which the app's own server
// (scripts/server.mjs) works out from the socket and SVC_TRUSTED_PROXY_HOPS and hands on in a
// header that no client can set. Throttles, rate limits and API keys' network rules use it.

const CLIENT_ADDRESS_HEADER = "x-svc-client-address";

/** The client's address, or "unknown" where the app runs without its own server (never in production). */
export const clientAddressOf = (request: Request): string => request.headers.get(CLIENT_ADDRESS_HEADER) || "unknown";

/** The client's User-Agent, cut to a length worth keeping. */
export const userAgentOf = (request: Request): string | null =>
  request.headers.get("user-agent")?.slice(0, 255) ?? null;

/** Where a request came from, as the audit trail records it. */
export interface RequestFacts {
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** The request's id (which the front door has made sane), client address and User-Agent. */
export function requestFactsOf(request: Request, requestId = request.headers.get("x-request-id")): RequestFacts {
  const ip = clientAddressOf(request);
  return { requestId, ip: ip === "unknown" ? null : ip, userAgent: userAgentOf(request) };
}
