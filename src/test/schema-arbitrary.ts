import fc from "fast-check";

// fast-check arbitraries shaped like a JSON Schema (the subset zod's toJSONSchema and the OpenAPI
// document write), for fuzzing: values a schema would accept, near enough to get past the first
// checks. `$ref`s are resolved inside the given root; one that does not resolve (or a recursion
// past a few levels) stands for any JSON value, so a broken document still yields inputs.

export type JsonSchema = { [key: string]: unknown };

const MAX_NESTING = 3;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const anyJson = fc.jsonValue({ maxDepth: 2 });

/** The schema a local `$ref` ("#/$defs/x") points to in `root`, if any. */
function resolve(ref: string, root: JsonSchema): JsonSchema | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const segment of ref.slice(2).split("/")) {
    if (!isSchema(node)) return undefined;
    node = node[decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return isSchema(node) ? node : undefined;
}

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

// fast-check's webUrl takes seconds of CPU to build (the tables behind its path and query
// characters), during which the process answers nothing: a fuzzer building one with requests in
// flight sees them time out. URLs here are a domain and plain path segments, built once.
const PATH_CHARACTER = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-._~");
let webUrl: fc.Arbitrary<string> | undefined;
const url = () =>
  (webUrl ??= fc
    .tuple(
      fc.constantFrom("https", "http"),
      fc.domain(),
      fc.array(fc.string({ unit: PATH_CHARACTER, minLength: 1, maxLength: 12 }), { maxLength: 3 }),
    )
    .map(([scheme, host, segments]) => `${scheme}://${host}/${segments.join("/")}`));

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
      return fc
        .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
        .map((d) => d.toISOString());
    case "email":
      return fc.emailAddress();
    case "uri":
      return url();
  }
  if (typeof schema.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(schema.pattern), { size: "xsmall" });
    } catch {
      // not a pattern JavaScript can build: any string
    }
  }
  const minLength = num(schema.minLength) ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(num(schema.maxLength) ?? 24, 24)) });
}

function objectOf(schema: JsonSchema, root: JsonSchema, nesting: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === "string")
    : [];
  const known = fc.record(
    Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property, root, nesting + 1)]),
    ),
    { requiredKeys: required.filter((k) => k in properties) },
  );
  const extra = isSchema(schema.additionalProperties)
    ? fc.dictionary(
        fc.string({ minLength: 1, maxLength: 12 }),
        arbitraryOf(schema.additionalProperties, root, nesting + 1),
        { maxKeys: 3 },
      )
    : fc.constant({});
  return fc.tuple(extra, known).map(([more, base]) => ({ ...more, ...base }));
}

/** Values shaped like `schema`, resolved against `root`. */
export function arbitraryOf(schema: unknown, root: JsonSchema, nesting = 0): fc.Arbitrary<unknown> {
  if (!isSchema(schema) || nesting > MAX_NESTING) return anyJson;
  if (typeof schema.$ref === "string") {
    const target = resolve(schema.$ref, root);
    return target ? arbitraryOf(target, root, nesting + 1) : anyJson;
  }
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const combinator of ["anyOf", "oneOf"] as const) {
    const options = schema[combinator];
    if (Array.isArray(options) && options.length > 0)
      return fc.oneof(...options.map((option) => arbitraryOf(option, root, nesting + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return arbitraryOf(schema.allOf[0], root, nesting + 1);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  const arbitraries = type.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case "string":
        return stringOf(schema);
      case "integer":
        return fc.integer({
          min: Math.max(num(schema.minimum) ?? -1000, -1e9),
          max: Math.min(num(schema.maximum) ?? 1000, 1e9),
        });
      case "number":
        return fc.double({
          noNaN: true,
          noDefaultInfinity: true,
          min: num(schema.minimum) ?? -1e6,
          max: num(schema.maximum) ?? 1e6,
        });
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array":
        return fc.array(arbitraryOf(schema.items, root, nesting + 1), {
          minLength: num(schema.minItems) ?? 0,
          maxLength: Math.max(num(schema.minItems) ?? 0, 3),
        });
      case "object":
        return objectOf(schema, root, nesting);
      default:
        return anyJson;
    }
  });
  return arbitraries.length === 1 ? (arbitraries[0] as fc.Arbitrary<unknown>) : fc.oneof(...arbitraries);
}
