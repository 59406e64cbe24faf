import { z } from "zod";
import { ERROR_CODES, ERRORS, isErrorCode } from "@/lib/errors";
import { errorGroups } from "@/server/rest/openapi-errors";
import { ROUTES, type RestOperation } from "@/server/rest/registry";

// What an answer of the app must look like: a registered route's success matches the response
// schema it declares; any error under /api is a problem document whose code has that status and
// carries only the members its code exposes (tRPC's own error envelope aside), and a route's error
// is one its OpenAPI operation declares. The SCIM service answers its errors in SCIM's schema.

// Literal segments win over parameters (`/models/lookup` before `/models/{model_config_id}`).
const parameterCount = (path: string) => path.split("{").length;
const ROUTE_MATCHERS = [...ROUTES]
  .sort((a, b) => parameterCount(a.path) - parameterCount(b.path))
  .map((route) => ({ route, pattern: new RegExp(`^${route.path.replace(/\{[a-z_]+\}/g, "[^/]+")}$`) }));

function routeOf(method: string, url: URL): RestOperation | undefined {
  return ROUTE_MATCHERS.find(({ route, pattern }) => route.method === method && pattern.test(url.pathname))?.route;
}

/** A SCIM error (RFC 7644 §3.12): the SCIM service answers in its own schema, not as a problem. */
const scimErrorSchema = z.strictObject({
  schemas: z.tuple([z.literal("urn:ietf:params:scim:api:messages:2.0:Error")]),
  status: z.string().regex(/^[45]\d\d$/),
  scimType: z
    .enum([
      "invalidFilter",
      "uniqueness",
      "mutability",
      "invalidValue",
      "invalidSyntax",
      "noTarget",
      "tooMany",
      "invalidPath",
      "invalidVers",
    ])
    .optional(),
  detail: z.string().min(1),
});

function checkScimError(where: string, status: number, type: string, body: unknown): void {
  if (!type.startsWith("application/scim+json"))
    throw new Error(`${where} with ${type || "no content type"}, not SCIM's`);
  const parsed = scimErrorSchema.safeParse(body);
  if (!parsed.success) throw new Error(`${where} with a malformed SCIM error: ${z.prettifyError(parsed.error)}`);
  if (parsed.data.status !== String(status))
    throw new Error(`${where} with status "${parsed.data.status}" in its body`);
  if (status >= 500 && status !== 503) throw new Error(`${where}: a fault`);
}

const problemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(ERROR_CODES),
});

/** An answer as it arrived: its status, headers and whole body. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Throws when an answer of the app does not have the shape its route declares (see above). */
export function checkAnswer(method: string, url: URL, { status, headers, text }: Answer): void {
  const where = `${method} ${url.pathname} answered ${status}`;
  // HEAD is GET's answer without its body.
  if (method.toUpperCase() === "HEAD") {
    if (text !== "") throw new Error(`${where} with a body`);
    return;
  }
  const route = routeOf(method.toUpperCase(), url);
  const type = headers.get("content-type") ?? "";
  const failed = status >= 400;
  if (!route && !failed) return;
  if (!route && url.pathname.startsWith("/api/trpc/") && !type.startsWith("application/problem+json")) return;
  let body: unknown = text;
  if (/json/.test(type)) {
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${where} with ${type} that is not JSON: ${text.slice(0, 200)}`);
    }
  }
  if (url.pathname.startsWith("/api/scim/")) {
    if (failed) checkScimError(where, status, type, body);
    return;
  }
  if (route && status >= 200 && status < 300) {
    const parsed = route.response.safeParse(body);
    if (!parsed.success)
      throw new Error(`${where} outside its declared response schema: ${z.prettifyError(parsed.error)}`);
    return;
  }
  if (!type.startsWith("application/problem+json"))
    throw new Error(`${where} with ${type || "no content type"}, not a problem document`);
  const parsed = problemSchema.safeParse(body);
  if (!parsed.success) throw new Error(`${where} with a malformed problem: ${z.prettifyError(parsed.error)}`);
  const problem = parsed.data;
  if (!isErrorCode(problem.code) || ERRORS[problem.code].status !== status || problem.status !== status) {
    throw new Error(`${where} with code ${problem.code} and status ${problem.status}`);
  }
  // The document lists, for each operation, the problems it can give: an answer it does not list
  // would surprise a client generated from it.
  if (route && !errorGroups(route).some((group) => group.status === status && group.codes.includes(problem.code)))
    throw new Error(`${where} with code ${problem.code}, which ${route.id} does not declare`);
  const allowed = new Set<string>(["type", "title", "status", "detail", "code", ...ERRORS[problem.code].extensions]);
  const extra = Object.keys(problem).filter((member) => !allowed.has(member));
  if (extra.length > 0)
    throw new Error(`${where}: the problem carries members its code does not expose: ${extra.join(", ")}`);
}
