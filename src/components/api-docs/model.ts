import { isErrorCode, type ErrorCode } from "@/lib/errors";

// Reads the OpenAPI document (src/server/rest/openapi.ts) into what the reference page renders:
// operations grouped by tag, readable types, field tables, generated examples and curl commands.
// Pure functions of the document, so the page is a static render of it.

/** The subset of JSON Schema the document's schemas use. */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
}

interface RawParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface RawResponse {
  description?: string;
  content?: Record<string, { schema?: JsonSchema }>;
}

interface RawOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  "x-required-permission"?: string;
  parameters?: RawParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, RawResponse>;
}

/** What the page needs of the document; `OpenApiDocument` satisfies it. */
export interface OpenApiLike {
  info: { title: string; version: string; description?: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

export type Access =
  | { kind: "public" }
  | { kind: "authenticated" }
  | { kind: "permission"; permission: string };

export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description: string;
}

export interface ErrorGroup {
  status: number;
  codes: ErrorCode[];
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  /** The description without its trailing access sentence. */
  paragraphs: string[];
  /** The access sentence the document appends to the description, if any. */
  accessNote?: string;
  access: Access;
  parameters: Parameter[];
  requestBody?: { contentType: string; schema: JsonSchema };
  success: { status: number; description: string; contentType?: string; schema?: JsonSchema };
  errors: ErrorGroup[];
}

export interface TagGroup {
  name: string;
  slug: string;
  operations: Operation[];
}

/** What the shared list parameters mean, when the document does not say. */
const PARAMETER_HINTS: Record<string, string> = {
  limit: "Page size.",
  cursor: "The `next_cursor` of the previous page; omit for the first page.",
};

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export const statusText = (status: number): string => STATUS_TEXT[status] ?? "";

export const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");


export const errorAnchor = (code: ErrorCode): string => `error-${code}`;

/** The sentences openapi.ts appends to every description to state who may call the operation. */
const ACCESS_SENTENCE = /^(No credentials needed\.|Any valid API key or console session\.|Requires .+\.)$/;

function splitDescription(description: string): { paragraphs: string[]; accessNote?: string } {
  const paragraphs = description
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const last = paragraphs.at(-1);
  if (last !== undefined && ACCESS_SENTENCE.test(last)) {
    return { paragraphs: paragraphs.slice(0, -1), accessNote: last };
  }
  return { paragraphs };
}

function accessOf(operation: RawOperation): Access {
  if (Array.isArray(operation.security) && operation.security.length === 0) return { kind: "public" };
  const permission = operation["x-required-permission"];
  if (permission) return { kind: "permission", permission };
  return { kind: "authenticated" };
}

/** Error codes named in a response description ("`not_found`: Not found; ..."). */
function codesIn(description: string | undefined): ErrorCode[] {
  return [...(description ?? "").matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? "").filter(isErrorCode);
}

function firstContent(content: Record<string, { schema?: JsonSchema }> | undefined) {
  const entry = Object.entries(content ?? {})[0];
  return entry ? { contentType: entry[0], schema: entry[1].schema } : undefined;
}

function toOperation(path: string, method: string, raw: RawOperation): Operation {
  const responses = Object.entries(raw.responses ?? {}).map(([status, response]) => ({
    status: Number(status),
    response,
  }));
  const successEntry = responses.filter((r) => r.status < 400).sort((a, b) => a.status - b.status)[0];
  const successContent = firstContent(successEntry?.response.content);
  const body = firstContent(raw.requestBody?.content);
  return {
    id: raw.operationId ?? slugify(`${method} ${path}`),
    method: method.toUpperCase(),
    path,
    tag: raw.tags?.[0] ?? "Other",
    summary: raw.summary ?? `${method.toUpperCase()} ${path}`,
    ...splitDescription(raw.description ?? ""),
    access: accessOf(raw),
    parameters: (raw.parameters ?? []).map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required === true,
      type: p.schema ? typeLabel(p.schema) : "string",
      description: [p.description ?? p.schema?.description ?? PARAMETER_HINTS[p.name], ...(p.schema ? constraints(p.schema) : [])]
        .filter(Boolean)
        .join(" · "),
    })),
    ...(body?.schema ? { requestBody: { contentType: body.contentType, schema: body.schema } } : {}),
    success: {
      status: successEntry?.status ?? 200,
      description: successEntry?.response.description ?? "",
      ...(successContent ? { contentType: successContent.contentType, schema: successContent.schema } : {}),
    },
    errors: responses
      .filter((r) => r.status >= 400)
      .sort((a, b) => a.status - b.status)
      .map((r) => ({ status: r.status, codes: codesIn(r.response.description) })),
  };
}

/** Operations grouped by tag, in the document's tag order, then path order. */
export function tagGroups(document: OpenApiLike): TagGroup[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const raw = item[method];
      if (raw && typeof raw === "object") operations.push(toOperation(path, method, raw as RawOperation));
    }
  }
  const order = [...(document.tags ?? []).map((t) => t.name), ...operations.map((o) => o.tag)];
  return [...new Set(order)]
    .map((name) => ({ name, slug: `tag-${slugify(name)}`, operations: operations.filter((o) => o.tag === name) }))
    .filter((group) => group.operations.length > 0);
}

// ---------------------------------------------------------------------------------------------
// Schemas: readable type labels, field tables and examples.

const refName = (ref: string): string => ref.split("/").at(-1) ?? ref;

const isNull = (schema: JsonSchema): boolean => schema.type === "null";

/** A short, human type: `string (uuid)`, `"api_key" | "session"`, `array of string`, `object | null`. */
export function typeLabel(schema: JsonSchema): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map(typeLabel))].join(" | ");
  if (Array.isArray(schema.type)) {
    return schema.type.map((t) => typeLabel({ ...schema, type: t })).join(" | ");
  }
  switch (schema.type) {
    case "string":
      return schema.format ? `string (${schema.format})` : "string";
    case "array":
      return schema.items ? `array of ${arrayItemLabel(schema.items)}` : "array";
    case undefined:
      return schema.properties ? "object" : "any";
    default:
      return schema.type;
  }
}

function arrayItemLabel(items: JsonSchema): string {
  const label = typeLabel(items);
  if (label === "object") return "objects";
  return label.includes(" | ") ? `(${label})` : label;
}

/** Limits and defaults worth stating next to a field. */
export function constraints(schema: JsonSchema): string[] {
  const out: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) out.push(`${min}–${max}${unit}`);
    else if (min !== undefined) out.push(`at least ${min}${unit}`);
    else if (max !== undefined) out.push(`at most ${max}${unit}`);
  };
  range(schema.minimum, schema.maximum, "");
  range(schema.minLength, schema.maxLength, " characters");
  range(schema.minItems, schema.maxItems, " items");
  if (schema.items?.maxLength !== undefined) out.push(`each at most ${schema.items.maxLength} characters`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  return out;
}

export interface FieldRow {
  /** Dotted path; `[]` marks the items of an array, e.g. `data[].id`. */
  path: string;
  depth: number;
  type: string;
  required: boolean;
  description: string;
}

/** The object schema inside `schema`, looking through `T | null`. */
function objectWithin(schema: JsonSchema): JsonSchema | undefined {
  if (schema.properties) return schema;
  const branches = (schema.anyOf ?? schema.oneOf ?? []).filter((s) => !isNull(s));
  return branches.length === 1 && branches[0] ? objectWithin(branches[0]) : undefined;
}

function arrayItemsWithin(schema: JsonSchema): JsonSchema | undefined {
  if (schema.type === "array") return schema.items;
  const branches = (schema.anyOf ?? schema.oneOf ?? []).filter((s) => !isNull(s));
  return branches.length === 1 && branches[0] ? arrayItemsWithin(branches[0]) : undefined;
}

/** One row per field, nested objects and arrays of objects flattened with dotted paths. */
export function fieldRows(schema: JsonSchema, prefix = "", depth = 0): FieldRow[] {
  if (depth > 6) return [];
  const object = objectWithin(schema);
  if (!object) {
    const items = arrayItemsWithin(schema);
    return items ? fieldRows(items, `${prefix}[].`, depth) : [];
  }
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const row: FieldRow = {
      path,
      depth,
      type: typeLabel(property),
      required: required.has(name),
      description: [property.description, ...constraints(property)].filter(Boolean).join(" · "),
    };
    const items = arrayItemsWithin(property);
    const nested = objectWithin(property)
      ? fieldRows(property, `${path}.`, depth + 1)
      : items && objectWithin(items)
        ? fieldRows(items, `${path}[].`, depth + 1)
        : [];
    return [row, ...nested];
  });
}

/** Placeholder values for well-known field names, so examples read like real traffic. */
const STRING_HINTS: Record<string, string> = {
  username: "ada",
  display_name: "Ada Lovelace",
  name: "example",
  key_prefix: "cdk_7Hq2LmXa",
  raw_key: "cdk_7Hq2LmXa…",
  next_cursor: "opaque-cursor",
  scopes: "svc:system:api_keys:read",
  effective_scopes: "svc:system:api_keys:read",
  permissions: "svc:system:api_keys:read",
  allowed_scopes: "svc:org:read",
  domain: "example.com",
  pid: "com.example.search",
  version: "1.0.0",
  provider: "openai",
  model_id: "gpt-4.1",
  aliases: "gpt-4.1-2025-04-14",
  input_price_per_unit: "2.5",
  output_price_per_unit: "10",
  currency: "USD",
  api_key: "sk-example-1234",
  content: "Hello!",
  password: "correct horse battery staple",
  redirect_uris: "https://app.example.com/callback",
  allowed_grant_types: "authorization_code",
  email: "ada@example.com",
  contact_email: "ada@example.com",
  locale: "en-GB",
  timezone: "Europe/London",
  country: "GB",
};

const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "0b9c4f3e-8a1d-4c2b-9e7f-5d6a3b2c1e0f",
  "date-time": "2026-01-15T09:30:00Z",
  date: "2026-01-15",
  email: "ada@example.com",
  uri: "https://example.com/",
};

/** A plausible value of `schema`, for example requests and responses. */
export function exampleOf(schema: JsonSchema, name = ""): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const branch = union.find((s) => !isNull(s)) ?? union[0];
    return branch ? exampleOf(branch, name) : null;
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? "null") : schema.type;
  switch (type) {
    case "string":
      return (
        (schema.format ? FORMAT_EXAMPLES[schema.format] : undefined) ??
        STRING_HINTS[name] ??
        (name.endsWith("_at") ? FORMAT_EXAMPLES["date-time"] : undefined) ??
        "string"
      );
    case "integer":
    case "number":
      return typeof schema.default === "number" ? schema.default : (schema.minimum ?? 0);
    case "boolean":
      return typeof schema.default === "boolean" ? schema.default : true;
    case "null":
      return null;
    case "array":
      return schema.items ? [exampleOf(schema.items, name)] : [];
    default:
      if (schema.properties) {
        return Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, exampleOf(value, key)]));
      }
      return {};
  }
}

// ---------------------------------------------------------------------------------------------
// curl

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** A copy-and-paste curl command for the operation, reading `$SVC_URL` and `$SVC_API_KEY`. */
export function curlCommand(operation: Operation): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, () => FORMAT_EXAMPLES.uuid ?? "id");
  const lines = [
    `curl -sS${operation.method === "GET" ? "" : ` -X ${operation.method}`} "$SVC_URL${path}"`,
  ];
  if (operation.access.kind !== "public") lines.push(`-H "X-API-KEY: $SVC_API_KEY"`);
  if (operation.requestBody) {
    lines.push(`-H "Content-Type: ${operation.requestBody.contentType}"`);
    lines.push(`-d ${shellQuote(JSON.stringify(exampleOf(operation.requestBody.schema), null, 2))}`);
  }
  return lines.join(" \\\n  ");
}
