import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Actor } from "@/server/auth/actor";
import { authenticateApiKey, refusedKeyOf } from "@/server/auth/api-key-stage";
import { recordKeyUsage } from "@/server/auth/api-key-usage";
import { metricsScraper } from "@/server/auth/metrics-token";
import { requireSameOriginWrite } from "@/server/auth/same-origin";
import { currentSessionActor } from "@/server/session";
import { DomainError, type ErrorCode } from "@/server/errors";
import { clientAddressOf, requestFactsOf, userAgentOf } from "@/server/http/client";
import { countAddressRequest, countAuthFailure, countKeyCredits, countKeyRequest } from "@/server/limits/api-limits";
import { log } from "@/server/log";
import { metrics } from "@/server/metrics";
import { asDomainError, invoke } from "@/server/operations/invoke";
import type { AnyOperation, Method } from "@/server/operations/operation";
import { operationAt, requestIdOf, type RestServer } from "./front-door";
import { problemResponse } from "./problem";
import type { RestOperation } from "./registry";
import { readIncomingJsonBody, readJsonBody } from "@/server/http/body-limit";
import { annotate, inServerSpan, inSpan } from "@/server/tracing/spans";

// The REST API's handler, one for every operation: request id → the operation at the path and
// method (from front-door.ts's endpoint index) → credentials (X-API-KEY or the console session) →
// the key's rate limit → the operation (operations/invoke.ts; a key's credits are spent once it is
// authorized and its input valid) → its JSON answer, or problem+json for
// any failure. A key that fails authentication counts against its client's address. One log line
// and one metric sample a request; a key's request, refused or not, counts in its usage. The front
// door serves it straight from the app's server; a request with the console's session comes through
// Next.js, whose request context Auth.js reads (docs/decisions/053-rest-served-by-the-front-door.md).

type RouteHandler = (request: Request) => Promise<Response>;

/** Reads the request's JSON body: from the fetch Request, or from Node.js' own request at the front door. */
type BodyReader = () => Promise<unknown>;

/** The body an operation reads; one that takes none refuses any. */
async function bodyFor(operation: AnyOperation, request: Request, readBody: BodyReader): Promise<unknown> {
  if (!operation.body && request.method === "GET") return undefined;
  const body = await readBody();
  if (!operation.body && body !== undefined) {
    throw new DomainError("validation_failed", "This route takes no body.", {
      errors: [{ path: "body", message: "is not expected" }],
    });
  }
  return body;
}

const SESSION_COOKIE = /(^|;\s*)(__Secure-|__Host-)?authjs\.session-token(\.\d+)?=/;

const KEY_FAILURES: ReadonlySet<ErrorCode> = new Set(["invalid_api_key", "api_key_expired", "api_key_revoked"]);

/** A refused key counts against the client's address: over its limit, the answer is 429 instead. */
async function countFailure(error: unknown, request: Request): Promise<never> {
  if (error instanceof DomainError && KEY_FAILURES.has(error.code)) await countAuthFailure(clientAddressOf(request));
  throw error;
}

function authenticateKey(raw: string, request: Request): Promise<Actor> {
  return inSpan("api_key.authenticate", {}, (span) =>
    authenticateApiKey(raw, clientAddressOf(request)).then(
      (actor) => {
        span?.setAttribute("svc.api_key.prefix", actor.key.prefix);
        return actor;
      },
      (error: unknown) => {
        span?.setAttribute("svc.problem", asDomainError(error).code);
        return countFailure(error, request);
      },
    ),
  );
}

/** X-API-KEY, else the console session. A key in Authorization: Bearer is refused, not used. */
async function authenticate(request: Request): Promise<Actor | null> {
  const key = request.headers.get("x-api-key");
  if (key !== null) return authenticateKey(key.trim(), request);
  const authorization = request.headers.get("authorization") ?? "";
  if (/^bearer\s+cdk_/i.test(authorization)) {
    throw new DomainError(
      "unauthenticated",
      "API keys go in the X-API-KEY header; Authorization: Bearer is for JWTs only.",
    );
  }
  // Decoding a session costs a JWT decryption: only when a session cookie is there at all.
  if (!SESSION_COOKIE.test(request.headers.get("cookie") ?? "")) return null;
  requireSameOriginWrite(request);
  return currentSessionActor();
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}

/** The request path with its parameters filled in, plus the new resource's id: a 201's Location. */
function locationOf(
  operation: AnyOperation,
  params: Record<string, string | string[]>,
  result: unknown,
): string | undefined {
  if (!operation.created || !operation.path) return undefined;
  const base = (operation.createdIn ?? operation.path).replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(params[name])),
  );
  return `${base}/${encodeURIComponent(operation.created(result))}`;
}

async function credentialsFor(operation: AnyOperation, request: Request): Promise<Actor | null> {
  if (operation.access === "public") return null;
  if (operation.access === "metrics")
    return metricsScraper(request.headers.get("authorization"), clientAddressOf(request));
  return authenticate(request);
}

/** What the door learnt of a request before it failed: who asked, and the headers its answer carries anyway. */
interface Seen {
  actor: Actor | null;
  /** A known key that was refused (revoked, expired, used from elsewhere): its usage counts the refusal. */
  refusedKey?: string;
  headers: Record<string, string>;
}

async function run(
  operation: AnyOperation,
  request: Request,
  readBody: BodyReader,
  params: Record<string, string>,
  requestId: string,
  seen: Seen,
): Promise<Response> {
  if (operation.addressLimit)
    seen.headers = await countAddressRequest(operation.addressLimit, clientAddressOf(request));
  const actor = await credentialsFor(operation, request);
  seen.actor = actor;
  // Only public and session-only operations declare a limit per address (operations.test.ts), so no
  // key's fields meet it.
  if (actor?.kind === "api_key") seen.headers = await countKeyRequest(actor.key.id, actor.key.rateLimit);
  const credits = actor?.kind === "api_key" ? actor.key.credits : undefined;
  const result = await invoke(
    operation,
    actor,
    {
      params,
      query: operation.query ? queryObject(new URL(request.url)) : {},
      body: () => bodyFor(operation, request, readBody),
    },
    {
      request: requestFactsOf(request, requestId),
      // A key with credits spends one once the request is authorized and valid.
      ...(credits && { admitted: () => countKeyCredits(credits, seen.headers) }),
    },
  );
  const location = locationOf(operation, params, result);
  return new Response(operation.produces ? String(result) : jsonOf(result), {
    status: operation.status ?? 200,
    headers: {
      "Content-Type": operation.produces ?? "application/json",
      "X-Request-Id": requestId,
      ...seen.headers,
      ...(operation.secret ? { "Cache-Control": "no-store" } : {}),
      ...(location ? { Location: location } : {}),
    },
  });
}

// The JSON of answers frozen all through (operation.ts, immutableAnswer), kept as long as they are.
const frozenJson = new WeakMap<object, string>();

function jsonOf(result: unknown): string {
  if (typeof result !== "object" || result === null || !Object.isFrozen(result)) return JSON.stringify(result);
  let json = frozenJson.get(result);
  if (json === undefined) frozenJson.set(result, (json = JSON.stringify(result)));
  return json;
}

/** A request to `operation` in its server span, named by the route's template. */
const serve = (
  operation: RestOperation,
  params: Record<string, string>,
  request: Request,
  readBody: BodyReader,
  requestId: string,
): Promise<Response> =>
  inServerSpan(
    request.headers,
    () => ({
      name: `${operation.method} ${operation.path}`,
      attributes: {
        "http.request.method": operation.method,
        "http.route": operation.path,
        "svc.operation": operation.id,
        "svc.request_id": requestId,
      },
    }),
    () => answer(operation, params, request, readBody, requestId),
  );

async function answer(
  operation: RestOperation,
  params: Record<string, string>,
  request: Request,
  readBody: BodyReader,
  requestId: string,
): Promise<Response> {
  const { path } = operation;
  const started = performance.now();
  const seen: Seen = { actor: null, headers: {} };
  let response: Response;
  try {
    response = await run(operation, request, readBody, params, requestId, seen);
  } catch (error) {
    const domain = asDomainError(error);
    if (domain.code === "internal_error") {
      log.error("unhandled error", {
        request_id: requestId,
        error:
          error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      });
    }
    seen.refusedKey = refusedKeyOf(error);
    response = problemResponse(domain, { ...seen.headers, "X-Request-Id": requestId });
    annotate({ "svc.problem": domain.code });
  }
  const { actor } = seen;
  if (actor?.kind === "api_key") annotate({ "svc.api_key.prefix": actor.key.prefix });
  const keyId = actor?.kind === "api_key" ? actor.key.id : seen.refusedKey;
  if (keyId) recordKeyUsage(keyId, response.status, clientAddressOf(request), userAgentOf(request));
  const seconds = (performance.now() - started) / 1000;
  const { requests, duration } = metrics();
  requests.inc({ route: path, method: operation.method, status: response.status });
  duration.observe({ route: path, method: operation.method }, seconds);
  log.info("request", {
    request_id: requestId,
    method: operation.method,
    path,
    status: response.status,
    duration_ms: Math.round(seconds * 10_000) / 10,
    auth: actor?.kind ?? null,
    user_id: actor && actor.kind !== "system" ? actor.userId : null,
    key_prefix: actor?.kind === "api_key" ? actor.key.prefix : null,
  });
  return response;
}

/** The route handler for `method`: it serves the operation declared for that method at the request's path. */
const routeHandler =
  (method: Method): RouteHandler =>
  async (request) => {
    // The front door (front-door.ts) has put a sane id here, and sends it in X-Request-Id.
    const requestId = requestIdOf(request.headers.get("x-request-id"));
    const { pathname } = new URL(request.url);
    const found = operationAt(method, pathname);
    if (found instanceof DomainError) return problemResponse(found, { "X-Request-Id": requestId });
    return serve(found.operation, found.params, request, () => readJsonBody(request), requestId);
  };

/**
 * The REST surface's route handlers, one a method, for one catch-all route (Next.js answers HEAD
 * with GET's, without the body). Unknown paths, other methods and OPTIONS are answered by the front
 * door before a route is reached; a request that gets here without it meets the same refusals.
 */
export const restHandlers: Record<Method, RouteHandler> = {
  GET: routeHandler("GET"),
  POST: routeHandler("POST"),
  PUT: routeHandler("PUT"),
  PATCH: routeHandler("PATCH"),
  DELETE: routeHandler("DELETE"),
};

/** Node's request as a fetch Request, but for its body: the handler reads that from Node's request. */
function fetchRequestOf(request: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (value) for (const each of value) headers.append(name, each);
  }
  // The URL's host only names the request: the handler reads its path and query.
  return new Request(new URL(request.url ?? "/", "http://localhost"), { method: request.method ?? "GET", headers });
}

async function send(response: ServerResponse, answer: Response, withBody: boolean): Promise<void> {
  const body = Buffer.from(await answer.arrayBuffer());
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  response.writeHead(answer.status, { ...headers, "Content-Length": String(body.byteLength) });
  response.end(withBody ? body : undefined);
}

/** Serves an operation straight from the app's server (the front door calls it), but for a request with a session. */
export const serveIncoming: RestServer = (request, response, operation, params, requestId) => {
  if (SESSION_COOKIE.test(request.headers.cookie ?? "")) return false;
  void serve(operation, params, fetchRequestOf(request), () => readIncomingJsonBody(request), requestId)
    .then((answer) => send(response, answer, request.method !== "HEAD"))
    .catch((error: unknown) => {
      log.error("could not send an answer", { request_id: requestId, error: String(error) });
      response.destroy();
    });
  return true;
};
