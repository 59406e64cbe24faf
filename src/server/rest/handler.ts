import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Actor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/api-key-stage";
import { requireOrgPermission, requirePermission, requirePermissionAnywhere, requireSysAdmin } from "@/server/auth/authorize";
import { currentSessionActor } from "@/server/auth/session";
import { mapDatabaseError } from "@/server/db/errors";
import { DomainError, zodFieldErrors } from "@/server/errors";
import { log } from "@/server/log";
import { problemResponse } from "./problem";
import { METHODS, RouteResult, type Method, type RouteSpec } from "./route";
import { routesAt } from "./registry";

// The one wrapper every REST route runs through: request id → body limit and JSON parsing →
// credentials (X-API-KEY or the console session) → the route's declared permission → input
// validation → the handler → output, or a problem+json for any failure. One log line a request.

export const BODY_LIMIT_BYTES = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

type NextContext = { params: Promise<Record<string, string | string[]>> };
type NextHandler = (request: Request, context: NextContext) => Promise<Response>;

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, root: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value);
  if (!result.success) throw new DomainError("validation_failed", "The request is not valid.", { errors: zodFieldErrors(result.error, root) });
  return result.data;
}

async function readBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > BODY_LIMIT_BYTES) throw new DomainError("payload_too_large", `The body is over ${BODY_LIMIT_BYTES} bytes.`);
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
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
  return SESSION_COOKIE.test(request.headers.get("cookie") ?? "") ? currentSessionActor() : null;
}

function authorizeRoute(spec: RouteSpec, actor: Actor | null, params: unknown): Actor | null {
  if (spec.access === "public") return actor;
  if (!actor) throw new DomainError("unauthenticated", "Send an API key in the X-API-KEY header, or sign in.");
  if (spec.access === "authenticated") return actor;
  if (spec.access.sysAdmin) requireSysAdmin(actor);
  if (spec.access.org) {
    const orgId = (params as Record<string, string>)[spec.access.org] as string;
    requireOrgPermission(actor, spec.access.permission, orgId, { list: spec.list });
  } else if (spec.access.anyOrg) {
    requirePermissionAnywhere(actor, spec.access.permission);
  } else {
    requirePermission(actor, spec.access.permission);
  }
  return actor;
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}

async function run(spec: RouteSpec, request: Request, context: NextContext, requestId: string) {
  const credentials = spec.access === "public" ? null : authenticate(request);
  const authenticated = credentials instanceof Promise ? await credentials : credentials;
  if (!authenticated && spec.access !== "public") {
    throw new DomainError("unauthenticated", "Send an API key in the X-API-KEY header, or sign in.");
  }
  const params = parse(spec.params, await context.params, "params");
  const actor = authorizeRoute(spec, authenticated, params);
  const rawBody = spec.body || request.method !== "GET" ? await readBody(request) : undefined;
  const query = spec.query ? parse(spec.query, queryObject(new URL(request.url)), "query") : undefined;
  const body = spec.body ? parse(spec.body, rawBody ?? {}, "") : undefined;
  if (!spec.body && rawBody !== undefined) {
    throw new DomainError("validation_failed", "This route takes no body.", { errors: [{ path: "body", message: "is not expected" }] });
  }
  const result = await spec.handler({ actor: actor as Actor, params, query, body, request });
  const { body: payload, init } = result instanceof RouteResult ? result : new RouteResult(result);
  return {
    actor,
    response: new Response(JSON.stringify(payload), {
      status: init.status ?? spec.status ?? 200,
      headers: {
        "Content-Type": "application/json",
        "X-Request-Id": requestId,
        ...(spec.secret ? { "Cache-Control": "no-store" } : {}),
        ...init.headers,
      },
    }),
  };
}

function toDomainError(error: unknown): DomainError {
  return error instanceof DomainError ? error : (mapDatabaseError(error) ?? new DomainError("internal_error", "Something went wrong on our side."));
}

function handlerFor(path: string, method: Method, spec: RouteSpec | undefined, allowed: Method[]): NextHandler {
  return async (request, context) => {
    const started = performance.now();
    const incoming = request.headers.get("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    let actor: Actor | null = null;
    let response: Response;
    try {
      if (!spec) {
        throw new DomainError("method_not_allowed", `${method} is not allowed here.`, { allowed });
      }
      ({ actor, response } = await run(spec, request, context, requestId));
    } catch (error) {
      const domain = toDomainError(error);
      if (domain.code === "internal_error") {
        log.error("unhandled error", { request_id: requestId, error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
      }
      const headers: Record<string, string> = { "X-Request-Id": requestId };
      if (domain.code === "method_not_allowed") headers.Allow = allowed.join(", ");
      if (domain.code === "unavailable" || domain.code === "rate_limited") headers["Retry-After"] = "5";
      response = problemResponse(domain, headers);
    }
    log.info("request", {
      request_id: requestId,
      method,
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

/** Handlers for every method at one path: the declared ones, and a 405 with Allow for the rest. */
export function restHandlers(path: string): Record<Method, NextHandler> {
  const specs = routesAt(path);
  if (specs.length === 0) throw new Error(`No REST route is registered at ${path}`);
  const allowed = specs.map((s) => s.method);
  return Object.fromEntries(
    METHODS.map((method) => [method, handlerFor(path, method, specs.find((s) => s.method === method), allowed)]),
  ) as Record<Method, NextHandler>;
}
