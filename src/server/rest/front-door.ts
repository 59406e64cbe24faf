import "server-only";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { DomainError } from "@/server/errors";
import { log } from "@/server/log";
import type { Method } from "@/server/operations/operation";
import { processState } from "@/server/process-state";
import { problemBody, problemHeaders } from "./problem";
import { docsPathOfTag } from "./docs-paths";
import { ROUTES, type RestOperation } from "./registry";

// Answers, before Next.js sees them, the /api requests Next.js would answer in HTML, plain text or
// an empty body: it gives every request an id (echoed in X-Request-Id) and answers a path that is
// not UTF-8, an unknown endpoint, a wrong method and OPTIONS itself, as problem+json (or 204). Its
// index of the endpoints is also the REST catch-all route's table. The app's own server
// (scripts/server.mjs) calls it. See docs/decisions/002-front-door.md.

export const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's request id when it is sane, else a new one. */
export const requestIdOf = (incoming: string | null | undefined): string =>
  incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();

interface Endpoint {
  /** In the registry's form: `{name}` is one segment, `{...name}` one or more. */
  path: string;
  methods: readonly Method[];
  /** A REST endpoint's operation for each of its methods; the other endpoints have files of their own. */
  operations?: ReadonlyMap<Method, RestOperation>;
}

/** Endpoints under /api besides the REST routes: the API reference, the console's tRPC, Auth.js, SSO. */
const OTHER_ENDPOINTS: readonly Endpoint[] = [
  { path: "/api/openapi.json", methods: ["GET"] },
  { path: "/api/docs", methods: ["GET"] },
  { path: "/api/trpc/{procedures}", methods: ["GET", "POST"] },
  { path: "/api/auth/{...action}", methods: ["GET", "POST"] },
  { path: "/api/sso/start", methods: ["GET"] },
  { path: "/api/sso/{connection_id}/oidc/callback", methods: ["GET"] },
  { path: "/api/sso/{connection_id}/saml/acs", methods: ["POST"] },
  { path: "/api/sso/{connection_id}/saml/metadata", methods: ["GET"] },
  { path: "/api/scim/v2/{...path}", methods: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
];

/** The API reference's page of each tag. */
const docsEndpoints = (): Endpoint[] =>
  [...new Set(ROUTES.map((route) => route.tag))].map((tag) => ({ path: docsPathOfTag(tag), methods: ["GET"] }));

function restEndpoints(): Endpoint[] {
  const byPath = new Map<string, Map<Method, RestOperation>>();
  for (const route of ROUTES) byPath.set(route.path, (byPath.get(route.path) ?? new Map()).set(route.method, route));
  return [...byPath].map(([path, operations]) => ({ path, methods: [...operations.keys()], operations }));
}

const segmentsOf = (path: string) => path.split("/").slice(1);

/** The path with repeated slashes made one and a trailing slash dropped. */
const withoutExtraSlashes = (pathname: string) => pathname.replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1");

/**
 * How well `path` fits a pattern's segments: how many static segments match (Next.js compares them
 * still percent-encoded), undefined when it does not fit.
 */
function fit(pattern: readonly string[], path: string[]): number | undefined {
  let statics = 0;
  for (let index = 0; index < pattern.length; index++) {
    const part = pattern[index]!;
    if (part.startsWith("{..."))
      return path.length > index && path.slice(index).every((s) => s !== "") ? statics : undefined;
    const segment = path[index];
    if (segment === undefined || segment === "") return undefined;
    if (part.startsWith("{")) continue;
    if (segment !== part) return undefined;
    statics += 1;
  }
  return path.length === pattern.length ? statics : undefined;
}

interface Pattern {
  endpoint: Endpoint;
  segments: string[];
}

// Endpoints indexed once: a path of static segments only is one map lookup (and wins over any
// pattern), the others are compared with the patterns of as many segments, and the catch-alls.
interface EndpointIndex {
  exact: Map<string, Endpoint>;
  bySegmentCount: Map<number, Pattern[]>;
  catchAlls: Pattern[];
}

let index: EndpointIndex | undefined;

function endpointIndex(): EndpointIndex {
  if (index) return index;
  const built: EndpointIndex = { exact: new Map(), bySegmentCount: new Map(), catchAlls: [] };
  for (const endpoint of [...restEndpoints(), ...OTHER_ENDPOINTS, ...docsEndpoints()]) {
    const pattern = { endpoint, segments: segmentsOf(endpoint.path) };
    if (!endpoint.path.includes("{")) built.exact.set(endpoint.path, endpoint);
    else if (endpoint.path.includes("{...")) built.catchAlls.push(pattern);
    else
      built.bySegmentCount.set(pattern.segments.length, [
        ...(built.bySegmentCount.get(pattern.segments.length) ?? []),
        pattern,
      ]);
  }
  return (index = built);
}

/**
 * The endpoint serving `pathname` (as Next.js picks one: static segments win), or undefined.
 * Repeated and trailing slashes do not count: the front door serves such a path as the one without.
 */
export function endpointAt(pathname: string): Endpoint | undefined {
  const { exact, bySegmentCount, catchAlls } = endpointIndex();
  const normalized = withoutExtraSlashes(pathname);
  const exactly = exact.get(normalized);
  if (exactly) return exactly;
  const path = segmentsOf(normalized);
  let best: { endpoint: Endpoint; statics: number } | undefined;
  for (const { endpoint, segments } of [...(bySegmentCount.get(path.length) ?? []), ...catchAlls]) {
    const statics = fit(segments, path);
    if (statics !== undefined && (!best || statics > best.statics)) best = { endpoint, statics };
  }
  return best?.endpoint;
}

/** What `Allow` says for an endpoint: its methods, HEAD with GET, and OPTIONS. */
export const allowOf = (endpoint: Endpoint): string[] => [
  ...endpoint.methods,
  ...(endpoint.methods.includes("GET") ? ["HEAD"] : []),
  "OPTIONS",
];

const isApiPath = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/");

/** The pathname as Next.js will route it (dot segments resolved), or undefined when the URL is not one. */
function pathnameOf(url: string): string | undefined {
  try {
    return new URL(url, "http://localhost").pathname;
  } catch {
    return undefined;
  }
}

const decodes = (pathname: string) => {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
};

const noSuchEndpoint = () => new DomainError("not_found", "No such endpoint. The API reference is at /api/docs.");

/** The endpoint that takes `method` at `pathname` (any endpoint takes OPTIONS), or the refusal to answer with. */
function endpointFor(method: string, pathname: string): Endpoint | DomainError {
  if (!decodes(pathname)) {
    return new DomainError("validation_failed", "The path is not valid percent-encoded UTF-8.", {
      errors: [{ path: "path", message: "is not valid percent-encoded UTF-8" }],
    });
  }
  const endpoint = endpointAt(pathname);
  if (!endpoint) return noSuchEndpoint();
  const allow = allowOf(endpoint);
  if (!allow.includes(method))
    return new DomainError("method_not_allowed", `${method} is not allowed here.`, { allowed: allow });
  return endpoint;
}

/** The path parameters of `pathname` at `endpoint`, decoded as Next.js decodes a route's (each segment on its own). */
function paramsAt(endpoint: Endpoint, pathname: string): Record<string, string> {
  const path = segmentsOf(withoutExtraSlashes(pathname));
  const params: Record<string, string> = {};
  segmentsOf(endpoint.path).forEach((part, index) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name) params[name] = decodeURIComponent(path[index]!);
  });
  return params;
}

/** The REST operation for `method` at `pathname` with its path parameters, or the refusal to answer with. */
export function operationAt(
  method: Method,
  pathname: string,
): { operation: RestOperation; params: Record<string, string> } | DomainError {
  const endpoint = endpointFor(method, pathname);
  if (endpoint instanceof DomainError) return endpoint;
  const operation = endpoint.operations?.get(method);
  // The endpoints that are not operations have route files of their own, which Next.js prefers.
  if (!operation) return noSuchEndpoint();
  return { operation, params: paramsAt(endpoint, pathname) };
}

function answer(response: ServerResponse, status: number, headers: Record<string, string>, body?: string) {
  response.writeHead(
    status,
    body === undefined
      ? headers
      : { ...headers, "Content-Type": "application/problem+json", "Cache-Control": "no-store" },
  );
  response.end(body);
}

/**
 * Serves a REST operation straight from the app's server, without Next.js; false when it cannot
 * (a request with the console's session, which is read through Next.js). See rest/handler.ts.
 */
export type RestServer = (
  request: IncomingMessage,
  response: ServerResponse,
  operation: RestOperation,
  params: Record<string, string>,
  requestId: string,
) => boolean;

const invalidUrl = () =>
  new DomainError("validation_failed", "The request target is not a valid URL.", {
    errors: [{ path: "path", message: "is not a valid URL" }],
  });

/** Handles the request when the front door answers it or serves its operation; false: Next.js goes on with it. */
function frontDoor(serveRest: RestServer, request: IncomingMessage, response: ServerResponse): boolean {
  const url = request.url ?? "/";
  const pathname = pathnameOf(url);
  if (pathname === undefined ? !url.startsWith("/api") : !isApiPath(pathname)) return false;
  const requestId = requestIdOf(request.headers["x-request-id"] as string | undefined);
  request.headers["x-request-id"] = requestId;
  response.setHeader("X-Request-Id", requestId);
  const method = request.method ?? "GET";
  const endpoint = pathname === undefined ? invalidUrl() : endpointFor(method, pathname);
  if (pathname !== undefined && !(endpoint instanceof DomainError) && method !== "OPTIONS") {
    // HEAD is GET's answer without its body, as Next.js serves it.
    const operation = endpoint.operations?.get(method === "HEAD" ? "GET" : (method as Method));
    if (operation && serveRest(request, response, operation, paramsAt(endpoint, pathname), requestId)) return true;
    // Next.js would answer a bare redirect for the extra slashes, which an API client does not follow.
    if (withoutExtraSlashes(pathname) !== pathname) {
      const query = url.indexOf("?");
      request.url = withoutExtraSlashes(pathname) + (query === -1 ? "" : url.slice(query));
    }
    return false;
  }
  if (endpoint instanceof DomainError)
    answer(response, endpoint.status, problemHeaders(endpoint), JSON.stringify(problemBody(endpoint)));
  else answer(response, 204, { Allow: allowOf(endpoint).join(", ") });
  log.info("request", {
    request_id: requestId,
    method: request.method,
    path: (pathname ?? url.split("?")[0] ?? "").slice(0, 200),
    status: response.statusCode,
    front_door: true,
  });
  return true;
}

/**
 * Hands the front door to the app's server, which calls it on every request (scripts/server.mjs),
 * with what serves the REST operations it finds. Called once, when the process starts (instrumentation.ts).
 */
export function installFrontDoor(serveRest: RestServer): void {
  processState("frontDoor", () => (request, response) => frontDoor(serveRest, request, response));
}
