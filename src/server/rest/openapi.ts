import "server-only";
import { z } from "zod";
import { ERROR_CODES, ERRORS, type ErrorCode } from "@/lib/errors";
import { ROUTES, type RestOperation } from "./registry";

// The OpenAPI 3.1 document, generated from the route registry and the same zod schemas that
// validate requests, so the two cannot disagree.

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
};

/** Errors any authenticated route may answer with. */
const COMMON_ERRORS: readonly ErrorCode[] = [
  "unauthenticated", "invalid_api_key", "api_key_expired", "api_key_revoked", "forbidden",
  "validation_failed", "payload_too_large", "unavailable",
];

const problemSchema: JsonSchema = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string", format: "uri-reference" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", enum: ERROR_CODES },
    errors: {
      type: "array",
      items: { type: "object", required: ["path", "message"], properties: { path: { type: "string" }, message: { type: "string" } } },
    },
    required_permission: { type: "string" },
    scopes: { type: "array", items: { type: "string" } },
  },
};

function parameters(schema: z.ZodType | undefined, location: "path" | "query") {
  if (!schema) return [];
  const json = toSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || (json.required ?? []).includes(name),
    schema: property,
    ...(property.description ? { description: property.description } : {}),
  }));
}

function errorResponses(route: RestOperation) {
  const codes = route.access === "public" ? (route.errors ?? []) : [...COMMON_ERRORS, ...(route.errors ?? [])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [
      String(status),
      {
        description: list.map((c) => `\`${c}\`: ${ERRORS[c].title}`).join("; "),
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      },
    ]),
  );
}

function operation(route: RestOperation) {
  const access =
    route.access === "public"
      ? "No credentials needed."
      : route.access === "authenticated"
        ? "Any valid API key or console session."
        : `Requires ${route.access.sysAdmin ? "a sys_admin holding " : ""}\`${route.access.permission}\`.`;
  return {
    operationId: route.id,
    summary: route.summary,
    description: [route.description, access].filter(Boolean).join("\n\n"),
    tags: [route.tag],
    ...(route.access === "public" ? { security: [] } : {}),
    ...(route.access !== "public" && route.access !== "authenticated" ? { "x-required-permission": route.access.permission } : {}),
    parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query")],
    ...(route.body
      ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(route.body, "input") } } } }
      : {}),
    responses: {
      [String(route.status ?? 200)]: {
        description: route.secret ? "Success. The response holds a secret and is sent with Cache-Control: no-store." : "Success.",
        content: { "application/json": { schema: toSchema(route.response, "output") } },
      },
      ...errorResponses(route),
    },
  };
}

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc control plane API",
      version: "1",
      description:
        "REST API of the svc control plane. Authenticate with an API key in the `X-API-KEY` header (never `Authorization: Bearer`), or with the console's session cookie. Errors are RFC 9457 problem details with a `code`.",
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }, { session: [] }],
    tags: [...new Set(ROUTES.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-KEY" },
        session: { type: "apiKey", in: "cookie", name: "authjs.session-token" },
      },
      schemas: { Problem: problemSchema },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
