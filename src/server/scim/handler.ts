import "server-only";
import { randomUUID } from "node:crypto";
import { SCIM_BASE_PATH, SCIM_RATE_LIMIT, SCIM_SCHEMAS } from "@/lib/scim";
import type { ScimActor } from "@/server/auth/actor";
import { scimActorOf } from "@/server/auth/scim-token";
import { CoalescedTouch } from "@/server/db/bookkeeping";
import { readContext } from "@/server/db/context";
import { mapDatabaseError } from "@/server/db/errors";
import { DomainError } from "@/server/errors";
import { readJsonBody } from "@/server/http/body-limit";
import { clientAddressOf, requestFactsOf, type RequestFacts } from "@/server/http/client";
import { publicOrigin } from "@/server/http/public-origin";
import { countAuthFailure, countKeyRequest, refuseWhileOverFailureLimit } from "@/server/limits/api-limits";
import { log } from "@/server/log";
import {
  resourceType,
  resourceTypes,
  schemaDocument,
  schemaDocuments,
  serviceProviderConfig,
} from "@/server/services/scim/discovery";
import { ScimError, type ScimType } from "@/server/services/scim/errors";
import {
  changeScimGroup,
  createScimGroup,
  deleteScimGroup,
  getScimGroup,
  listScimGroups,
} from "@/server/services/scim/groups";
import { recordScimRequest } from "@/server/services/scim/requests";
import { listParamsOf, listResponse, projected, projectionOf } from "@/server/services/scim/resource";
import {
  changeScimUser,
  createScimUser,
  deleteScimUser,
  getScimUser,
  listScimUsers,
} from "@/server/services/scim/users";

// The SCIM 2.0 service (RFC 7644) at /api/scim/v2, a door of its own beside REST and tRPC: it
// speaks SCIM's media type, error schema and resources rather than the API's problem+json. The
// token decides access (src/server/auth/scim-token.ts); the services under services/scim do the
// rest. Every request is counted against its token's rate limit and listed for the organization's
// admins with its outcome.

const SCIM_JSON = "application/scim+json";
const tokenUse = new CoalescedTouch({ table: "scim_tokens", column: "last_used_at" });

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Call {
  ctx: ReturnType<typeof readContext<ScimActor>>;
  method: string;
  segments: string[];
  query: URLSearchParams;
  request: Request;
  facts: RequestFacts;
  origin: string;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Answer => ({ status, body, headers });
/** A resource answered whole or as `attributes`/`excludedAttributes` ask, with its ETag (and Location when made). */
const resourceAnswer = (
  query: URLSearchParams,
  resource: Record<string, unknown> & { meta: { version: string } },
  status = 200,
  location?: string,
): Answer =>
  json(projected(resource, projectionOf(query)), status, {
    ETag: resource.meta.version,
    ...(location && { Location: location }),
  });

function notAllowed(allowed: string): never {
  throw new ScimError(405, `This endpoint takes ${allowed}.`, undefined, { Allow: allowed });
}

/** No SCIM resource nests deeper than this; a body that does is no resource. */
const MAX_DEPTH = 16;

/**
 * Refuses what no resource holds before it reaches a query: NUL (PostgreSQL's text cannot hold
 * it) and nesting past MAX_DEPTH.
 */
function refuseUnstorable(value: unknown, depth = 0): void {
  if (typeof value === "string") {
    if (value.includes("\0")) throw new ScimError(400, "Values may not hold NUL characters.", "invalidValue");
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (depth >= MAX_DEPTH) throw new ScimError(400, `The body nests deeper than ${MAX_DEPTH} levels.`, "invalidSyntax");
  for (const [key, each] of Object.entries(value)) {
    refuseUnstorable(key, depth + 1);
    refuseUnstorable(each, depth + 1);
  }
}

async function bodyOf(request: Request): Promise<unknown> {
  try {
    const body = await readJsonBody(request);
    if (body === undefined) throw new ScimError(400, "The request has no body.", "invalidSyntax");
    refuseUnstorable(body);
    return body;
  } catch (error) {
    if (error instanceof DomainError)
      throw new ScimError(
        error.status === 413 ? 413 : 400,
        error.message,
        error.status === 413 ? undefined : "invalidSyntax",
      );
    throw error;
  }
}

async function users({ ctx, method, segments, query, request, facts, origin }: Call): Promise<Answer> {
  const [, id] = segments;
  const ifMatch = request.headers.get("if-match");
  const call = { ifMatch, origin, request: facts };
  if (id === undefined) {
    if (method === "GET") return json(await listScimUsers(ctx, listParamsOf(query), origin));
    if (method === "POST") {
      const user = await createScimUser(ctx, await bodyOf(request), origin, facts);
      return resourceAnswer(query, user, 201, user.meta.location);
    }
    notAllowed("GET, POST");
  }
  switch (method) {
    case "GET":
      return resourceAnswer(query, await getScimUser(ctx, id, origin));
    case "PUT":
      return resourceAnswer(
        query,
        await changeScimUser(ctx, id, { kind: "replace", body: await bodyOf(request) }, call),
      );
    case "PATCH":
      return resourceAnswer(query, await changeScimUser(ctx, id, { kind: "patch", body: await bodyOf(request) }, call));
    case "DELETE":
      await deleteScimUser(ctx, id, ifMatch, facts);
      return { status: 204 };
    default:
      notAllowed("GET, PUT, PATCH, DELETE");
  }
}

async function groups({ ctx, method, segments, query, request, facts, origin }: Call): Promise<Answer> {
  const [, id] = segments;
  const ifMatch = request.headers.get("if-match");
  const call = { ifMatch, origin, request: facts };
  if (id === undefined) {
    if (method === "GET") return json(await listScimGroups(ctx, listParamsOf(query), origin));
    if (method === "POST") {
      const group = await createScimGroup(ctx, await bodyOf(request), origin, facts);
      return resourceAnswer(query, group, 201, group.meta.location);
    }
    notAllowed("GET, POST");
  }
  switch (method) {
    case "GET":
      return resourceAnswer(query, await getScimGroup(ctx, id, origin));
    case "PUT":
      return resourceAnswer(
        query,
        await changeScimGroup(ctx, id, { kind: "replace", body: await bodyOf(request) }, call),
      );
    case "PATCH":
      return resourceAnswer(
        query,
        await changeScimGroup(ctx, id, { kind: "patch", body: await bodyOf(request) }, call),
      );
    case "DELETE":
      await deleteScimGroup(ctx, id, ifMatch, facts);
      return { status: 204 };
    default:
      notAllowed("GET, PUT, PATCH, DELETE");
  }
}

/** The discovery documents: read-only, the same for every organization. */
function discovery({ method, segments, query, origin }: Call): Answer {
  if (method !== "GET") notAllowed("GET");
  const [resource, id] = segments;
  if (resource === "ServiceProviderConfig" && id === undefined) return json(serviceProviderConfig(origin));
  if (resource === "ResourceTypes")
    return json(
      id === undefined
        ? listResponse(resourceTypes(origin), 2, allOf(query))
        : resourceType(origin, decodeURIComponent(id)),
    );
  if (resource === "Schemas")
    return json(
      id === undefined
        ? listResponse(schemaDocuments(origin), 2, allOf(query))
        : schemaDocument(origin, decodeURIComponent(id)),
    );
  throw new ScimError(404, "No such endpoint of the SCIM service.");
}

const allOf = (query: URLSearchParams) => ({ startIndex: 1, count: 2, ...projectionOf(query) });

async function route(call: Call): Promise<Answer> {
  const [resource, , more] = call.segments;
  if (more !== undefined) throw new ScimError(404, "No such endpoint of the SCIM service.");
  if (resource === "Users") return users(call);
  if (resource === "Groups") return groups(call);
  if (resource === "ServiceProviderConfig" || resource === "ResourceTypes" || resource === "Schemas")
    return discovery(call);
  throw new ScimError(404, "No such endpoint of the SCIM service.");
}

/** A thrown error as SCIM's: domain errors by their status, database faults as 503, the rest 500 (logged). */
function scimErrorOf(error: unknown, requestId: string): ScimError {
  if (error instanceof ScimError) return error;
  const domain = error instanceof DomainError ? error : mapDatabaseError(error);
  if (domain) {
    if (domain.code === "conflict") return new ScimError(409, domain.message, "uniqueness");
    if (domain.code === "rate_limited")
      return new ScimError(429, domain.message, undefined, {
        "Retry-After": String(domain.details.retry_after_seconds ?? 60),
      });
    if (domain.code === "validation_failed") return new ScimError(400, domain.message, "invalidValue");
    if (domain.code === "quota_exceeded") return new ScimError(403, domain.message);
    if (domain.status < 500) return new ScimError(domain.status, domain.message);
    if (domain.code === "unavailable") return new ScimError(503, "The service is unavailable; try again shortly.");
  }
  log.error("SCIM request failed", {
    request_id: requestId,
    error: (error as Error).message,
    stack: (error as Error).stack,
  });
  return new ScimError(500, `Something went wrong on our side (request ${requestId}).`);
}

function respond(answer: Answer, requestId: string): Response {
  const headers = { "X-Request-Id": requestId, "Cache-Control": "no-store", ...answer.headers };
  if (answer.body === undefined) return new Response(null, { status: answer.status, headers });
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { "Content-Type": SCIM_JSON, ...headers },
  });
}

const errorAnswer = (error: ScimError): Answer =>
  json(
    {
      schemas: [SCIM_SCHEMAS.error],
      status: String(error.status),
      ...(error.scimType && { scimType: error.scimType }),
      detail: error.message,
    },
    error.status,
    error.headers,
  );

/** Serves one request to /api/scim/v2/…. */
export async function handleScim(request: Request): Promise<Response> {
  const requestId = request.headers.get("x-request-id") ?? randomUUID();
  const facts = requestFactsOf(request, requestId);
  const url = new URL(request.url);
  const segments = url.pathname.slice(SCIM_BASE_PATH.length).split("/").filter(Boolean);
  let actor: ScimActor | null = null;
  let answer: Answer;
  try {
    const address = clientAddressOf(request);
    await refuseWhileOverFailureLimit(address);
    actor = await scimActorOf(request.headers.get("authorization"));
    if (!actor) {
      await countAuthFailure(address);
      throw new ScimError(401, "Send the organization's SCIM token as Authorization: Bearer scim_….", undefined, {
        "WWW-Authenticate": 'Bearer realm="scim"',
      });
    }
    tokenUse.record(actor.token.id);
    await countKeyRequest(actor.token.id, SCIM_RATE_LIMIT);
    refuseUnstorable([...url.searchParams]);
    answer = await route({
      ctx: readContext(actor),
      method: request.method,
      segments,
      query: url.searchParams,
      request,
      facts,
      origin: publicOrigin(),
    });
  } catch (error) {
    answer = errorAnswer(scimErrorOf(error, requestId));
  }
  if (actor) {
    const failed = answer.status >= 400 ? (answer.body as { scimType?: ScimType; detail?: string }) : undefined;
    recordScimRequest(readContext(actor), {
      orgId: actor.orgId,
      tokenPrefix: actor.token.prefix,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      status: answer.status,
      scimType: failed?.scimType ?? null,
      detail: failed?.detail ?? null,
    });
  }
  return respond(answer, requestId);
}
