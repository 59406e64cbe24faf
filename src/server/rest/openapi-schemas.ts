import "server-only";
import { z } from "zod";

// The named parts of the OpenAPI document: JSON Schemas converted from zod (the `$defs` zod
// extracts become components), and parameters and responses several operations share.

export type JsonSchema = { [key: string]: unknown };
type Io = "input" | "output";

export const SCHEMA_REF = "#/components/schemas/";

/** The name of the JSON value schema (`z.json()`), the one recursive schema zod leaves unnamed. */
const JSON_VALUE = "JsonValue";

/**
 * What the JSON value component says. zod spells z.json() recursively (an array or object of JSON
 * values); the empty schema admits exactly the same documents, and generated clients can type it
 * (`unknown`), whereas openapi-typescript's output for the recursive form does not compile (TS2502).
 */
const JSON_VALUE_SCHEMA: JsonSchema = {
  description:
    "Any JSON value: a string, number, boolean, null, array or object. A request may nest one at most 64 levels deep, within its 1 MiB body.",
};

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
/** The length of a UUID in its canonical form, the only one zod's `z.uuid()` takes. */
const UUID_LENGTH = 36;

/**
 * Bounds the validating zod schema holds but zod does not write: an integer's format (int32 when
 * its range fits in 32 bits, else int64), and a UUID's length.
 */
function stateImplicitBounds({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.type === "integer" && jsonSchema.format === undefined) {
    const min = jsonSchema.minimum ?? jsonSchema.exclusiveMinimum;
    const max = jsonSchema.maximum ?? jsonSchema.exclusiveMaximum;
    const fits = typeof min === "number" && typeof max === "number" && min >= INT32.min && max <= INT32.max;
    jsonSchema.format = fits ? "int32" : "int64";
  }
  if (jsonSchema.type === "string" && jsonSchema.format === "uuid") jsonSchema.maxLength ??= UUID_LENGTH;
}

/**
 * A codec in an answer (a moment: a Date in the handler, a string on the wire) as the wire carries
 * it: zod renders an answer's output side, which for a codec is the server's type. (A request's
 * input side is the wire's already.)
 */
function stateWireForm(context: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  if (!(context.zodSchema instanceof z.ZodCodec)) return;
  const { $schema: _dialect, ...wire } = toJsonSchema(context.zodSchema.def.in, "input");
  // The codec's own description follows the wire form's members, as it would on a plain string.
  const own = { ...context.jsonSchema };
  for (const key of Object.keys(own)) delete context.jsonSchema[key];
  Object.assign(context.jsonSchema, wire, own);
}

/** How zod renders a schema for the document. */
function toJsonSchema(schema: z.core.$ZodType, io: Io) {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: (context) => {
      if (io === "output") stateWireForm(context);
      stateImplicitBounds(context);
    },
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
}

/** A definition with its references to itself made neutral, so that copies of it compare equal. */
const shapeOf = (definition: unknown, ownRef: string): string =>
  JSON.stringify(definition).replaceAll(JSON.stringify(ownRef), '"#self"');

/** What zod makes of `z.json()` when it meets it inside another schema. */
const jsonValueShape = (() => {
  const { $defs = {} } = toJsonSchema(z.object({ value: z.json() }), "output");
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
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  constructor(fixed: Record<string, JsonSchema>) {
    Object.assign(this.schemas, fixed);
  }

  /** The JSON Schema of `schema`; the definitions zod extracts (`$defs`) become components. */
  convert(schema: z.ZodType, io: Io): JsonSchema {
    const { $schema: _dialect, $defs = {}, ...root } = toJsonSchema(schema, io);
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
export class SharedComponents {
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
