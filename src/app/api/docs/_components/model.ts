import type { Access } from "@/server/operations/operation";
import { slugify } from "@/server/rest/docs-paths";
import { errorGroups, type ErrorGroup, type OpenApiDocument } from "@/server/rest/openapi";
import { ROUTES, type RestOperation } from "@/server/rest/registry";

// What the API reference page renders, from the operation declarations (summary, description,
// access, errors) and the OpenAPI document built from them (parameter and body schemas, with the
// examples the zod schemas carry in `.meta({ examples })`). Pure functions, so the page is a
// static render.

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
  examples?: unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
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

type Ref = { $ref: string };

interface RawOperation {
  parameters?: (RawParameter | Ref)[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> } | Ref>;
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description: string;
  /** A value to show in example requests. */
  example: unknown;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  paragraphs: string[];
  access: Access;
  parameters: Parameter[];
  requestBody?: { contentType: string; schema: JsonSchema };
  success: { status: number; secret: boolean; contentType: string; schema: JsonSchema };
  errors: ErrorGroup[];
}

export interface TagGroup {
  name: string;
  description: string;
  slug: string;
  operations: Operation[];
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export const statusText = (status: number): string => STATUS_TEXT[status] ?? "";

export const errorAnchor = (code: string): string => `error-${code}`;

const componentName = (ref: string): string => ref.split("/").at(-1) ?? ref;

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(["examples", "default", "const", "enum"]);

/**
 * The schema with its `$ref`s to named schemas replaced by what they name, so that field tables and
 * examples can look inside. A schema met again inside itself stays a reference.
 */
export function dereference(schema: JsonSchema, schemas: Record<string, unknown>): JsonSchema {
  const walk = (value: unknown, within: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, within));
    if (value === null || typeof value !== "object") return value;
    const { $ref, ...rest } = value as Record<string, unknown>;
    if (typeof $ref === "string") {
      const name = componentName($ref);
      const target = schemas[name];
      if (target && !within.includes(name)) return walk({ ...(target as object), ...rest }, [...within, name]);
    }
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, DATA_KEYWORDS.has(key) ? item : walk(item, within)]),
    );
  };
  return walk(schema, []) as JsonSchema;
}

function resolve<T extends object>(value: T | Ref, components: Record<string, unknown> | undefined): T {
  return "$ref" in value ? (components?.[componentName(value.$ref)] as T) : value;
}

function toOperation(route: RestOperation, document: OpenApiDocument): Operation {
  const raw = document.paths[route.path]?.[route.method.toLowerCase()] as RawOperation;
  const schemas = document.components.schemas;
  const parameters = (raw.parameters ?? []).map((p) =>
    resolve(p, document.components.parameters as Record<string, unknown>),
  );
  const status = route.status ?? 200;
  const success = resolve(raw.responses[String(status)] ?? { $ref: "" }, document.components.responses);
  const body = raw.requestBody?.content["application/json"]?.schema;
  const produces = route.produces ?? "application/json";
  return {
    id: route.id,
    method: route.method,
    path: route.path,
    tag: route.tag,
    summary: route.summary,
    paragraphs: (route.description ?? "")
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean),
    access: route.access,
    parameters: parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required === true,
      type: p.schema ? typeLabel(p.schema) : "string",
      description: [p.description, ...(p.schema ? constraints(p.schema) : [])].filter(Boolean).join(" · "),
      example: exampleOf(p.schema ?? {}),
      schema: dereference(p.schema ?? {}, schemas),
    })),
    ...(body ? { requestBody: { contentType: "application/json", schema: dereference(body, schemas) } } : {}),
    success: {
      status,
      secret: route.secret === true,
      contentType: produces,
      schema: dereference(success.content?.[produces]?.schema ?? {}, schemas),
    },
    errors: errorGroups(route),
  };
}

/** Operations grouped by tag, in the document's tag order, each group in declaration order. */
export function tagGroups(document: OpenApiDocument): TagGroup[] {
  return document.tags.map((tag) => ({
    name: tag.name,
    description: tag.description,
    slug: `tag-${slugify(tag.name)}`,
    operations: ROUTES.filter((route) => route.tag === tag.name).map((route) => toOperation(route, document)),
  }));
}

// ---------------------------------------------------------------------------------------------
// Schemas: readable type labels, field tables and examples.

const isNull = (schema: JsonSchema): boolean => schema.type === "null";

/** A short, human type: `string (uuid)`, `"api_key" | "session"`, `array of string`, `object | null`. */
export function typeLabel(schema: JsonSchema): string {
  if (schema.$ref) return componentName(schema.$ref);
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
function constraints(schema: JsonSchema): string[] {
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

/** Values for formats, where a schema gives no example of its own. */
const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "0b9c4f3e-8a1d-4c2b-9e7f-5d6a3b2c1e0f",
  "date-time": "2026-01-15T09:30:00Z",
  date: "2026-01-15",
  email: "ada@example.com",
  uri: "https://example.com/",
};

/**
 * An example of `schema`: the first of its own `examples` (from the zod schema's `.meta`), else one
 * built from its parts, falling back on a plain value of its type.
 */
export function exampleOf(schema: JsonSchema): unknown {
  if (schema.examples && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const branch = union.find((s) => !isNull(s)) ?? union[0];
    return branch ? exampleOf(branch) : null;
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? "null") : schema.type;
  switch (type) {
    case "string":
      return (schema.format ? FORMAT_EXAMPLES[schema.format] : undefined) ?? "string";
    case "integer":
    case "number":
      return schema.minimum ?? (schema.exclusiveMinimum === undefined ? 0 : schema.exclusiveMinimum + 1);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array":
      return schema.items ? [exampleOf(schema.items)] : [];
    default:
      if (schema.properties) {
        return Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, exampleOf(value)]));
      }
      // An object of any keys; or no type at all, any JSON value.
      return type === "object" ? {} : null;
  }
}

// ---------------------------------------------------------------------------------------------
// curl

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** A copy-and-paste curl command for the operation, reading `$SVC_URL` and `$SVC_API_KEY`. */
export function curlCommand(operation: Operation): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(operation.parameters.find((p) => p.in === "path" && p.name === name)?.example)),
  );
  const lines = [`curl -sS${operation.method === "GET" ? "" : ` -X ${operation.method}`} "$SVC_URL${path}"`];
  if (operation.access === "metrics") lines.push(`-H "Authorization: Bearer $SVC_METRICS_TOKEN"`);
  else if (operation.access !== "public") lines.push(`-H "X-API-KEY: $SVC_API_KEY"`);
  if (operation.requestBody) {
    lines.push(`-H "Content-Type: ${operation.requestBody.contentType}"`);
    lines.push(`-d ${shellQuote(JSON.stringify(exampleOf(operation.requestBody.schema), null, 2))}`);
  }
  return lines.join(" \\\n  ");
}
