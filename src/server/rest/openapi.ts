import "server-only";
import { z } from "zod";
import packageJson from "../../../package.json";
import { ERROR_CODES, ERRORS, type ErrorCode, type ProblemExtension, type ProblemHeader } from "@/lib/errors";
import type { Access } from "@/server/operations/operation";
import { ROUTES, type RestOperation } from "./registry";

// The OpenAPI 3.1 document, generated from the operation declarations and the zod schemas that
// validate requests, so the two cannot disagree. Integrators generate clients from it, so every
// reference points into `#/components/...`: schemas named with zod's `.meta({ id })`, the JSON value
// schema, the problem schema, and the parameters and error responses several operations share.

type JsonSchema = { [key: string]: unknown };
type Io = "input" | "output";

/** Tags in the order the reference shows them, each with what it groups. */
/** A name as a URL's segment or an anchor: lower case, runs of anything else as one hyphen. */
export const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** Where the API reference (src/app/api/docs) describes a tag's operations in full. */
export const docsPathOfTag = (tag: string): string => `/api/docs/${slugify(tag)}`;

export const TAGS: Readonly<Record<string, string>> = {
  Operations:
    "Liveness and readiness probes for load balancers and orchestrators (no credentials), and metrics for Prometheus.",
  Identity: "Who the caller is, and what it may do.",
  "API keys":
    "Long-lived keys for integrations, sent as `X-API-KEY`. A key acts for the user it was issued to, within what that user holds; the raw key is shown once.",
  Organizations: "The tenants. Every organization-scoped resource sits under `/api/v1/organizations/{org_id}`.",
  Settings:
    "Settings in tiers: the platform's (tier 2) over each organization's (tier 3) over an orchestrator instance's config (tier 4), and the effective values that result.",
  "LLM configs":
    "An organization's own LLM provider keys. A key is stored encrypted and never returned, only its last 4 characters.",
  "Orchestrator instances": "An organization's AI assistant apps: framework, mode, configuration and plugin settings.",
  "Central points": "Stable API handles that map to an organization's orchestrator instances (pro tier and above).",
  Plugins: "Plugins, one record per version: the system catalog, and each organization's own.",
  Models: "The platform's catalog of models. Prices are exact decimals sent as strings.",
  Conversations:
    "Conversations and their message history. A conversation is private to its user unless the caller holds `svc:conversations:manage`.",
  Users: "User accounts, their passwords, organizations and linked sign-in identities.",
  Members: "An organization's members and the org roles they hold in it.",
  "Roles and permissions": "The permission catalog, roles (sets of permissions), and grants of roles to users.",
  "OAuth clients": "OAuth 2.0 client registrations. A confidential client's secret is shown once.",
  "Audit trail":
    "Every change through any door (REST, console, CLI), sign-ins and refused authorizations, each with who, what, where from and the fields it changed (secret fields by name only).",
};

// ---------------------------------------------------------------------------------------------
// Who may call an operation, and what it can fail with: the document and the API reference page
// both read these.

export function accessText(access: Access): string {
  if (access === "public") return "No credentials needed.";
  if (access === "authenticated") return "Any valid API key or console session.";
  if (access === "session") return "A signed-in console session only: never an API key.";
  if (access === "metrics")
    return "The metrics token as `Authorization: Bearer` (`SVC_METRICS_TOKEN`); when none is set, a client on the app's own machine (a loopback address) and nobody else.";
  const holder = access.sysAdmin ? "a sys_admin holding " : "";
  const where = access.org
    ? " in the organization, or globally"
    : access.anyOrg
      ? " in any one organization, or globally"
      : "";
  return `Requires ${holder}\`${access.permission}\`${where}.`;
}

/** The codes a failed X-API-KEY or session answers with. */
const AUTHENTICATION_ERRORS: readonly ErrorCode[] = [
  "unauthenticated",
  "invalid_api_key",
  "api_key_expired",
  "api_key_revoked",
];

/** What any call of the operation can fail with, besides the errors it declares. */
function implicitErrors(route: RestOperation): ErrorCode[] {
  if (route.access === "public") return [];
  if (route.access === "metrics") return ["unauthenticated", "forbidden"];
  const access = typeof route.access === "object" ? route.access : undefined;
  const readsBody = route.method !== "GET";
  return [
    ...AUTHENTICATION_ERRORS,
    // `include_deleted=true` is for sys_admins only.
    ...(access || route.access === "session" || route.query?.shape.include_deleted ? (["forbidden"] as const) : []),
    // Another tenant's organization looks missing (its lists answer 403 instead).
    ...(access?.org && !access.list ? (["not_found"] as const) : []),
    // A route without a body still refuses one.
    ...(readsBody || route.params || route.query ? (["validation_failed"] as const) : []),
    ...(readsBody ? (["payload_too_large", "unsupported_media_type"] as const) : []),
    // A key over its rate limit, or an address with too many failed authentications.
    "rate_limited",
    // The key or session is looked up in the database.
    "unavailable",
  ];
}

export interface ErrorGroup {
  status: number;
  codes: ErrorCode[];
}

/** The operation's error codes by HTTP status, in the catalog's order. */
export function errorGroups(route: RestOperation): ErrorGroup[] {
  const codes = new Set([...implicitErrors(route), ...(route.errors ?? [])]);
  const groups = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES.filter((c) => codes.has(c))) {
    groups.set(ERRORS[code].status, [...(groups.get(ERRORS[code].status) ?? []), code]);
  }
  return [...groups].sort(([a], [b]) => a - b).map(([status, list]) => ({ status, codes: list }));
}

// ---------------------------------------------------------------------------------------------
// Components

const SCHEMA_REF = "#/components/schemas/";

/** The name of the JSON value schema (`z.json()`), the one recursive schema zod leaves unnamed. */
const JSON_VALUE = "JsonValue";

/**
 * What the JSON value component says. zod spells z.json() recursively (an array or object of JSON
 * values); the empty schema admits exactly the same documents, and generated clients can type it
 * (`unknown`), whereas openapi-typescript's output for the recursive form does not compile (TS2502).
 */
const JSON_VALUE_SCHEMA: JsonSchema = {
  description: "Any JSON value: a string, number, boolean, null, array or object.",
};

/** A definition with its references to itself made neutral, so that copies of it compare equal. */
const shapeOf = (definition: unknown, ownRef: string): string =>
  JSON.stringify(definition).replaceAll(JSON.stringify(ownRef), '"#self"');

/** What zod makes of `z.json()` when it meets it inside another schema. */
const jsonValueShape = (() => {
  const { $defs = {} } = z.toJSONSchema(z.object({ value: z.json() })) as { $defs?: Record<string, unknown> };
  const [name, definition] = Object.entries($defs)[0] ?? [];
  if (!name)
    throw new Error("zod no longer renders z.json() as a definition: the OpenAPI document needs a new way to name it");
  return shapeOf(definition, `#/$defs/${name}`);
})();

/** Rewrites every `$ref` found in `refs`; any other value is copied as it is. */
function rewriteRefs(value: unknown, refs: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, refs));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === "$ref" && typeof item === "string" ? (refs.get(item) ?? item) : rewriteRefs(item, refs),
    ]),
  );
}

/** Named JSON Schemas, filled as operations are converted: only what is referenced ends up here. */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  constructor(fixed: Record<string, JsonSchema>) {
    Object.assign(this.schemas, fixed);
  }

  /** The JSON Schema of `schema`; the definitions zod extracts (`$defs`) become components. */
  convert(schema: z.ZodType, io: Io): JsonSchema {
    const {
      $schema: _dialect,
      $defs = {},
      ...root
    } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const named = Object.entries($defs).map(([id, definition]) => ({
      id,
      name: this.nameOf(id, definition),
      definition,
    }));
    const refs = new Map(named.map(({ id, name }) => [`#/$defs/${id}`, SCHEMA_REF + name]));
    for (const { name, definition } of named) this.add(name, rewriteRefs(definition, refs) as JsonSchema);
    return rewriteRefs(root, refs) as JsonSchema;
  }

  /** A `.meta({ id })` names its schema; zod calls a recursive one it cannot name `__schema<n>`. */
  private nameOf(id: string, definition: JsonSchema): string {
    if (!id.startsWith("__schema")) return id;
    if (shapeOf(definition, `#/$defs/${id}`) === jsonValueShape) return JSON_VALUE;
    throw new Error(
      `A recursive schema has no name: give it one with .meta({ id }) (${JSON.stringify(definition).slice(0, 200)})`,
    );
  }

  private add(name: string, definition: JsonSchema) {
    const schema = name === JSON_VALUE ? JSON_VALUE_SCHEMA : definition;
    const existing = this.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(
        `Two different schemas are named ${name}: requests and responses must agree, or use an id of their own`,
      );
    }
    this.schemas[name] = schema;
  }
}

/**
 * Parameters and responses: a value several operations use becomes one component, named by the
 * caller, and each use a `$ref` to it; a value used once stays where it is.
 */
class SharedComponents {
  private readonly entries = new Map<string, { value: JsonSchema; name: string; uses: JsonSchema[] }>();

  constructor(private readonly kind: "parameters" | "responses") {}

  /** A stand-in for `value`, which `components()` turns into a `$ref` when the value is shared. */
  use(value: JsonSchema, name: string): JsonSchema {
    const key = JSON.stringify(value);
    const entry = this.entries.get(key) ?? { value, name, uses: [] };
    this.entries.set(key, entry);
    const use = { ...value };
    entry.uses.push(use);
    return use;
  }

  /** The shared values by name. The most used value keeps a name; another one of that name stays inline. */
  components(): Record<string, JsonSchema> {
    const components: Record<string, JsonSchema> = {};
    const shared = [...this.entries.values()]
      .filter((entry) => entry.uses.length > 1)
      .sort((a, b) => b.uses.length - a.uses.length);
    for (const entry of shared) {
      if (Object.hasOwn(components, entry.name)) continue;
      components[entry.name] = entry.value;
      for (const use of entry.uses) {
        for (const key of Object.keys(use)) delete use[key];
        use.$ref = `#/components/${this.kind}/${entry.name}`;
      }
    }
    return components;
  }
}

type HeaderName = ProblemHeader | "X-Request-Id" | "Location" | "Cache-Control";

const HEADERS: Record<HeaderName, { description: string; schema: JsonSchema }> = {
  "X-Request-Id": {
    description:
      "The request's id: the one you sent (up to 128 letters, digits, `.`, `_` or `-`), or a new one. Quote it when reporting a problem.",
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 0 } },
  "RateLimit-Policy": {
    description:
      'Sent when an API key authenticated the request: the key\'s rate limit, as an IETF RateLimit-Policy field, `"key";q=<requests>;w=<window seconds>`.',
    schema: { type: "string", examples: ['"key";q=1000;w=60'] },
  },
  RateLimit: {
    description:
      'Sent when an API key authenticated the request: where the key\'s window stands, as an IETF RateLimit field, `"key";r=<requests remaining>;t=<seconds until the window resets>`.',
    schema: { type: "string", examples: ['"key";r=998;t=42'] },
  },
  Allow: { description: "The methods the path takes, comma-separated.", schema: { type: "string" } },
  Location: { description: "The path of the new resource.", schema: { type: "string", format: "uri-reference" } },
  "Cache-Control": {
    description: "`no-store`: the response holds a secret.",
    schema: { type: "string", const: "no-store" },
  },
};

const EXTENSION_TEXT: Record<ProblemExtension, { text: string; schema: JsonSchema }> = {
  errors: {
    text: "Each bad field: its dotted `path` (query fields start with `query.`, path parameters with `params.`) and what is wrong with it.",
    schema: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
        additionalProperties: false,
      },
    },
  },
  required_permission: { text: "The permission the caller lacks.", schema: { type: "string" } },
  scopes: { text: "The scopes at fault.", schema: { type: "array", items: { type: "string" } } },
  allowed: { text: "The methods the path takes.", schema: { type: "array", items: { type: "string" } } },
};

const codeList = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\``).join(", ");

/** RFC 9457 problem details, with the members the error catalog lets each code carry. */
function problemSchema(): JsonSchema {
  const extensions = Object.entries(EXTENSION_TEXT).map(([name, { text, schema }]) => {
    const carriers = ERROR_CODES.filter((code) => (ERRORS[code].extensions as readonly string[]).includes(name));
    return [name, { ...schema, description: `${text} Sent with ${codeList(carriers)}.` }];
  });
  return {
    type: "object",
    description:
      "An error, as RFC 9457 problem details (`application/problem+json`). Branch on `code`, not on `detail`.",
    required: ["type", "title", "status", "detail", "code"],
    properties: {
      type: {
        type: "string",
        format: "uri-reference",
        description: "`/api/docs#error-<code>`: the code's entry in the API reference.",
      },
      title: { type: "string", description: "The code's title; the same for every problem with this code." },
      status: { type: "integer", description: "The HTTP status." },
      detail: { type: "string", description: "What went wrong with this request, for people." },
      code: { type: "string", enum: ERROR_CODES, description: "What went wrong, for programs." },
      ...Object.fromEntries(extensions),
    },
  };
}

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

/** A shared error response's name: the 401 of every authenticated operation, or its codes. */
const responseName = (codes: readonly ErrorCode[]) =>
  codes.join() === AUTHENTICATION_ERRORS.join() ? "Unauthenticated" : codes.map(pascal).join("Or");

// ---------------------------------------------------------------------------------------------
// The document

class DocumentBuilder {
  readonly schemas = new SchemaComponents({ Problem: problemSchema() });
  readonly parameters = new SharedComponents("parameters");
  readonly responses = new SharedComponents("responses");
  private readonly headersUsed = new Set<HeaderName>();

  header(name: HeaderName) {
    this.headersUsed.add(name);
    return { $ref: `#/components/headers/${name}` };
  }

  headers() {
    return Object.fromEntries(Object.entries(HEADERS).filter(([name]) => this.headersUsed.has(name as HeaderName)));
  }

  parametersOf(schema: z.ZodType | undefined, location: "path" | "query"): JsonSchema[] {
    if (!schema) return [];
    const json = this.schemas.convert(schema, "input") as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    return Object.entries(json.properties ?? {}).map(([name, { description, ...property }]) =>
      this.parameters.use(
        {
          name,
          in: location,
          required: location === "path" || (json.required ?? []).includes(name),
          ...(typeof description === "string" ? { description } : {}),
          schema: property,
        },
        name,
      ),
    );
  }

  errorResponse({ status, codes }: ErrorGroup): JsonSchema {
    const headers = [...new Set(codes.flatMap((code) => ERRORS[code].headers))];
    return this.responses.use(
      {
        description: codes.map((code) => `\`${code}\`: ${ERRORS[code].note}`).join("\n\n"),
        headers: Object.fromEntries([
          ["X-Request-Id", this.header("X-Request-Id")],
          ...headers.map((name) => [name, this.header(name)]),
        ]),
        content: {
          "application/problem+json": {
            schema: {
              allOf: [
                { $ref: `${SCHEMA_REF}Problem` },
                {
                  type: "object",
                  properties: { status: { type: "integer", const: status }, code: { type: "string", enum: codes } },
                },
              ],
            },
          },
        },
      },
      responseName(codes),
    );
  }

  operation(route: RestOperation, response: JsonSchema) {
    const status = route.status ?? 200;
    return {
      operationId: route.id,
      summary: route.summary,
      description: [route.description, accessText(route.access)].filter(Boolean).join("\n\n"),
      tags: [route.tag],
      ...(route.access === "public"
        ? { security: [] }
        : route.access === "metrics"
          ? { security: [{ metricsToken: [] }] }
          : {}),
      ...(typeof route.access === "object" ? { "x-required-permission": route.access.permission } : {}),
      parameters: [...this.parametersOf(route.params, "path"), ...this.parametersOf(route.query, "query")],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: this.schemas.convert(route.body, "input") } },
            },
          }
        : {}),
      responses: {
        [String(status)]: {
          description: route.secret
            ? "Holds a secret, shown this once: sent with `Cache-Control: no-store`."
            : status === 201
              ? "Created."
              : "OK.",
          headers: {
            "X-Request-Id": this.header("X-Request-Id"),
            ...(route.access === "public" || route.access === "metrics"
              ? {}
              : { "RateLimit-Policy": this.header("RateLimit-Policy"), RateLimit: this.header("RateLimit") }),
            ...(route.created ? { Location: this.header("Location") } : {}),
            ...(route.secret ? { "Cache-Control": this.header("Cache-Control") } : {}),
          },
          content: { [route.produces ?? "application/json"]: { schema: response } },
        },
        ...Object.fromEntries(errorGroups(route).map((group) => [String(group.status), this.errorResponse(group)])),
      },
    };
  }
}

export function openApiDocument() {
  const builder = new DocumentBuilder();
  const missing = ROUTES.map((route) => route.tag).filter((tag) => !Object.hasOwn(TAGS, tag));
  if (missing.length > 0) throw new Error(`Describe these tags in TAGS: ${[...new Set(missing)].join(", ")}`);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const response = builder.schemas.convert(route.response, "output");
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: builder.operation(route, response) };
  }
  const tags = new Set(ROUTES.map((route) => route.tag));
  return {
    openapi: "3.1.0",
    info: {
      title: "svc control plane API",
      version: packageJson.version,
      description: [
        "REST API of the svc control plane: organizations, their orchestrator instances and settings, users, roles and API keys.",
        'Authenticate with an API key in the `X-API-KEY` header (never `Authorization: Bearer`), or with the console\'s session cookie. Bodies are JSON with snake_case fields. Lists answer `{"data": [...], "next_cursor": ...}`: pass `next_cursor` back as `cursor` until it is null. Errors are RFC 9457 problem details with a stable `code`.',
      ].join("\n\n"),
      // The service is not published under an open-source license.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }, { session: [] }],
    tags: Object.entries(TAGS)
      .filter(([name]) => tags.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: builder.schemas.schemas,
      parameters: builder.parameters.components(),
      responses: builder.responses.components(),
      headers: builder.headers(),
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-KEY",
          description: "An API key: `cdk_` and 49 more characters, shown once when it is created.",
        },
        metricsToken: {
          type: "http",
          scheme: "bearer",
          description: "The token set in `SVC_METRICS_TOKEN`, for `GET /api/metrics` only.",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "__Host-authjs.session-token",
          description: "The session of a user signed in to the console (an HttpOnly cookie, sent over HTTPS only).",
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
