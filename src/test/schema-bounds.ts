import type { JsonSchema } from "@/app/api/docs/_components/model";

// The bounds a JSON Schema states (the OpenAPI document's, dereferenced), for generated tests: each
// field's longest string, most items, largest and smallest integer, longest field name and most
// fields, with values right at the bound and just past it. Values come in pairs of one shape (a URL
// at the bound and a URL one character longer), built to pass the field's other rules where a
// simple shape does (a URL, an email address, a date, a dotted name), so that the value past the
// bound breaks the bound alone.

/** Where a value sits in a request: its path from the location's root (array items by index). */
export type FieldPath = (string | number)[];

/** A value right at a bound, and one of the same shape just past it where the shape has one. */
interface Pair {
  at: unknown;
  /** Undefined where the shape has no longer form (a UUID, a CIDR): the bound is the shape's own. */
  past?: unknown;
}

export interface Bound {
  path: FieldPath;
  /** What is bounded, as the schema says it. */
  keyword: "maxLength" | "maxItems" | "maximum" | "minimum" | "propertyNames.maxLength" | "maxProperties";
  limit: number;
  /** Candidates, in order: the caller uses the first whose value at the bound the field accepts. */
  pairs: Pair[];
  /** A value past the bound in any shape, for when no pair's value at the bound is accepted. */
  past: unknown;
}

const isNull = (schema: JsonSchema) => schema.type === "null";

/** The schema inside `T | null`; several branches of strings are one string of the longest of them. */
function unwrap(schema: JsonSchema): JsonSchema {
  const branches = (schema.anyOf ?? schema.oneOf ?? []).filter((branch) => !isNull(branch));
  if (branches.length === 0) return schema;
  if (branches.length === 1) return unwrap(branches[0] as JsonSchema);
  if (branches.every((branch) => branch.type === "string" && branch.maxLength !== undefined))
    return { type: "string", maxLength: Math.max(...branches.map((branch) => branch.maxLength as number)) };
  return schema;
}

const repeat = (unit: string, length: number) => unit.repeat(Math.max(0, length));

/** Labels of at most 63 letters joined by dots, like a domain name or a reverse-domain id. */
function dotted(length: number): string {
  let out = "";
  while (out.length < length) {
    out += repeat("a", Math.min(63, length - out.length));
    if (out.length < length) out += ".";
  }
  return out;
}

/** Shapes of strings that common formats and patterns accept, each at a length asked for where it can be. */
const STRING_SHAPES: ((length: number) => string)[] = [
  (length) => repeat("a", length),
  (length) => `${repeat("a", length - 12)}@example.com`,
  (length) => `https://example.com/${repeat("a", length - 20)}`,
  (length) => `2099-01-15T09:30:00.${repeat("0", length - 21)}Z`,
  dotted,
  (length) => `1.0.0-${repeat("a", length - 6)}`,
  (length) => `${repeat("1", Math.min(length, 10))}.${repeat("1", length - 11)}`,
  (length) => repeat("1", length),
  () => "255.255.255.255/32",
  () => "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
  // The longest IPv6 address written out: its last 32 bits as IPv4.
  () => "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
];

/** Strings of exactly `length` characters, each with its shape's string one character longer where there is one. */
function stringPairs(length: number): Pair[] {
  return STRING_SHAPES.flatMap((shape) => {
    const [at, past] = [shape(length), shape(length + 1)];
    if (at.length !== length) return [];
    return [past.length === length + 1 ? { at, past } : { at }];
  });
}

/** `count` items for an array of `items`, distinct where the items' shape lets them be. */
function itemsOf(items: JsonSchema, count: number, example: (schema: JsonSchema) => unknown): unknown[] {
  const item = unwrap(items);
  if (item.enum) return Array.from({ length: count }, (_, i) => item.enum?.[i % item.enum.length]);
  if (item.format === "uuid") return Array.from({ length: count }, () => crypto.randomUUID());
  if (item.type === "string") return Array.from({ length: count }, (_, i) => `item-${i}`);
  return Array.from({ length: count }, () => example(items));
}

/** An object of `count` fields, named `k0`, `k1`, … */
const fieldsOf = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 0]));

/** Every bound `schema` states, for its fields at any depth (an array's first item standing for all). */
export function boundsOf(schema: JsonSchema, example: (schema: JsonSchema) => unknown, path: FieldPath = []): Bound[] {
  const field = unwrap(schema);
  const bounds: Bound[] = [];
  const at = (keyword: Bound["keyword"], limit: number, pairs: Pair[], past: unknown) =>
    bounds.push({ path, keyword, limit, pairs, past });
  /** A bound whose values past it break it alone. */
  const exact = (keyword: Bound["keyword"], limit: number, value: unknown, past: unknown) =>
    at(keyword, limit, [{ at: value, past }], past);
  if (field.type === "string" && field.maxLength !== undefined) {
    const pairs = field.format === "uuid" ? [{ at: crypto.randomUUID() }] : stringPairs(field.maxLength);
    at("maxLength", field.maxLength, pairs, repeat("a", field.maxLength + 1));
  }
  if (field.type === "integer") {
    const max = field.maximum ?? field.exclusiveMaximum;
    const min = field.minimum ?? field.exclusiveMinimum;
    const inclusiveMax = field.maximum ?? (max === undefined ? undefined : max - 1);
    const inclusiveMin = field.minimum ?? (min === undefined ? undefined : min + 1);
    if (inclusiveMax !== undefined) exact("maximum", inclusiveMax, inclusiveMax, inclusiveMax + 1);
    if (inclusiveMin !== undefined) exact("minimum", inclusiveMin, inclusiveMin, inclusiveMin - 1);
  }
  if (field.type === "array" && field.items) {
    const maxItems = field.maxItems;
    if (maxItems !== undefined)
      exact("maxItems", maxItems, itemsOf(field.items, maxItems, example), itemsOf(field.items, maxItems + 1, example));
    bounds.push(...boundsOf(field.items, example, [...path, 0]));
  }
  if (field.properties) {
    for (const [name, property] of Object.entries(field.properties))
      bounds.push(...boundsOf(property, example, [...path, name]));
  }
  const names = (field as { propertyNames?: JsonSchema }).propertyNames;
  if (names?.maxLength !== undefined) {
    const key = (length: number) => ({ [repeat("a", length)]: 0 });
    exact("propertyNames.maxLength", names.maxLength, key(names.maxLength), key(names.maxLength + 1));
  }
  const maxProperties = (field as { maxProperties?: number }).maxProperties;
  if (maxProperties !== undefined)
    exact("maxProperties", maxProperties, fieldsOf(maxProperties), fieldsOf(maxProperties + 1));
  return bounds;
}

/** `root` with the value at `path` replaced by `value`, building what is missing on the way. */
export function withValueAt(root: unknown, path: FieldPath, value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === "number") {
    const list = Array.isArray(root) ? [...(root as unknown[])] : [];
    list[head] = withValueAt(list[head], rest, value);
    return list;
  }
  const object = typeof root === "object" && root !== null && !Array.isArray(root) ? { ...root } : {};
  return { ...object, [head]: withValueAt((object as Record<string, unknown>)[head], rest, value) };
}

/** Keywords whose values are data (examples, defaults, allowed values), not schemas. */
const DATA = new Set(["examples", "default", "enum", "const"]);

/**
 * Every string, array and integer schema in a document or schema that states no bound, by where it
 * is: a string without maxLength (or an enum or const), an array without maxItems, an integer
 * without a format, minimum and maximum. Content that is not JSON (the metrics' text) has no fields
 * to bound.
 */
export function unboundedIn(value: unknown, at = "#"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => unboundedIn(item, `${at}/${index}`));
  if (value === null || typeof value !== "object") return [];
  const schema = value as JsonSchema;
  const types = [schema.type].flat();
  const found = [
    ...(types.includes("string") && [schema.maxLength, schema.enum, schema.const].every((b) => b === undefined)
      ? [`${at}: a string without maxLength`]
      : []),
    ...(types.includes("array") && schema.maxItems === undefined ? [`${at}: an array without maxItems`] : []),
    ...(types.includes("integer") &&
    [schema.format, schema.minimum ?? schema.exclusiveMinimum, schema.maximum ?? schema.exclusiveMaximum].includes(
      undefined,
    )
      ? [`${at}: an integer without format, minimum and maximum`]
      : []),
  ];
  return [
    ...found,
    ...Object.entries(schema)
      .filter(([key]) => !DATA.has(key) && !key.startsWith("text/plain"))
      .flatMap(([key, item]) => unboundedIn(item, `${at}/${key}`)),
  ];
}
