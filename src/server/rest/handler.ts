import "server-only";
import type { Actor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/api-key-stage";
import { requireSameOriginWrite } from "@/server/auth/same-origin";
import { currentSessionActor } from "@/server/auth/session";
import { DomainError } from "@/server/errors";
import { log } from "@/server/log";
import { asDomainError, invoke } from "@/server/operations/invoke";
import type { AnyOperation, Method } from "@/server/operations/operation";
import { requestIdOf } from "./front-door";
import { problemResponse } from "./problem";
import { routesAt } from "./registry";

// The REST door every route runs through: request id → credentials (X-API-KEY or the console
// session) → the operation (access, input, handler: operations/invoke.ts) → its JSON answer, or a
// problem+json for any failure. One log line a request.

export const BODY_LIMIT_BYTES = 1024 * 1024;

type NextContext = { params: Promise<Record<string, string | string[]>> };
type NextHandler = (request: Request, context: NextContext) => Promise<Response>;

async function readBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > BODY_LIMIT_BYTES) throw new DomainError("payload_too_large", `The body is over ${BODY_LIMIT_BYTES} bytes.`);
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A client that stops sending midway has sent no body worth answering with a 500.
    const { done, value } = await reader.read().catch(() => {
      throw new DomainError("validation_failed", "The body could not be read to its end.", { errors: [{ path: "body", message: "was cut off" }] });
    });
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await reader.cancel();
      throw new DomainError("payload_too_large", `The body is over ${BODY_LIMIT_BYTES} bytes.`);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new DomainError("unsupported_media_type", "Send the body as application/json.");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError("validation_failed", "The body is not valid JSON.", { errors: [{ path: "body", message: "is not valid JSON" }] });
  }
}

/** The body an operation reads; one that takes none refuses any. */
async function bodyFor(operation: AnyOperation, request: Request): Promise<unknown> {
  if (!operation.body && request.method === "GET") return undefined;
  const body = await readBody(request);
  if (!operation.body && body !== undefined) {
    throw new DomainError("validation_failed", "This route takes no body.", { errors: [{ path: "body", message: "is not expected" }] });
  }
  return body;
}

const SESSION_COOKIE = /(^|;\s*)(__Secure-|__Host-)?authjs\.session-token(\.\d+)?=/;

/**
 * X-API-KEY, else the console session. A key in Authorization: Bearer is refused, not used. A
 * cached key answers without a promise.
 */
function authenticate(request: Request): Actor | null | Promise<Actor | null> {
  const key = request.headers.get("x-api-key");
  if (key !== null) return authenticateApiKey(key.trim());
  const authorization = request.headers.get("authorization") ?? "";
  if (/^bearer\s+cdk_/i.test(authorization)) {
    throw new DomainError("unauthenticated", "API keys go in the X-API-KEY header; Authorization: Bearer is for JWTs only.");
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
function locationOf(operation: AnyOperation, params: Record<string, string | string[]>, result: unknown): string | undefined {
  if (!operation.created || !operation.path) return undefined;
  const base = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
  return `${base}/${encodeURIComponent(operation.created(result))}`;
}

async function run(operation: AnyOperation, request: Request, context: NextContext, requestId: string) {
  const credentials = operation.access === "public" ? null : authenticate(request);
  const actor = credentials instanceof Promise ? await credentials : credentials;
  const params = await context.params;
  const result = await invoke(operation, actor, {
    params,
    query: operation.query ? queryObject(new URL(request.url)) : {},
    body: () => bodyFor(operation, request),
  });
  const location = locationOf(operation, params, result);
  return {
    actor,
    response: new Response(JSON.stringify(result), {
      status: operation.status ?? 200,
      headers: {
        "Content-Type": "application/json",
        "X-Request-Id": requestId,
        ...(operation.secret ? { "Cache-Control": "no-store" } : {}),
        ...(location ? { Location: location } : {}),
      },
    }),
  };
}

function handlerFor(path: string, operation: AnyOperation): NextHandler {
  return async (request, context) => {
    const started = performance.now();
    // The front door (front-door.ts) has put a sane id here, and sends it in X-Request-Id.
    const requestId = requestIdOf(request.headers.get("x-request-id"));
    let actor: Actor | null = null;
    let response: Response;
    try {
      ({ actor, response } = await run(operation, request, context, requestId));
    } catch (error) {
      const domain = asDomainError(error);
      if (domain.code === "internal_error") {
        log.error("unhandled error", { request_id: requestId, error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
      }
      response = problemResponse(domain, { "X-Request-Id": requestId });
    }
    log.info("request", {
      request_id: requestId,
      method: operation.method,
      path,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      auth: actor?.kind ?? null,
      user_id: actor && actor.kind !== "system" ? actor.userId : null,
      key_prefix: actor?.kind === "api_key" ? actor.key.prefix : null,
    });
    return response;
  };
}

/**
 * Handlers for the methods declared at one path. Other methods, OPTIONS and unknown paths are
 * answered by the front door before a route is reached.
 */
export function restHandlers(path: string): Partial<Record<Method, NextHandler>> {
  const operations = routesAt(path);
  if (operations.length === 0) throw new Error(`No REST route is registered at ${path}`);
  return Object.fromEntries(operations.map((operation) => [operation.method, handlerFor(path, operation)]));
}
