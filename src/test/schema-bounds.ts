import type { JsonSchema } from "@/app/api/docs/_components/model";

// The bounds a JSON Schema states (the OpenAPI document's, dereferenced), for generated tests: each
// field's longest string, most items, largest and smallest integer, longest field name and most
// fields, with a value right at the bound and one just past it. Values at the bound are built to
// pass the field's other rules where a simple shape does (a URL, an email address, a date, a dotted
// name); where none does, the test still learns whether the length alone was refused.

/** Where a value sits in a request: its path from the location's root (array items by index). */
export type FieldPath = (string | number)[];

export interface Bound {
  path: FieldPath;
  /** What is bounded, as the schema says it. */
  keyword: "maxLength" | "maxItems" | "maximum" | "minimum" | "propertyNames.maxLength" | "maxProperties";
  limit: number;
  /** Candidates for a value at the bound, and one past it; the first the caller finds valid is used. */
  at: unknown[];
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

/** Strings of exactly `length` characters in shapes that common formats and patterns accept. */
function stringsOf(length: number): string[] {
  return [
    repeat("a", length),
    `${repeat("a", length - 12)}@example.com`,
    `https://example.com/${repeat("a", length - 20)}`,
    `2099-01-15T09:30:00.${repeat("0", length - 21)}Z`,
    dotted(length),
    `1.0.0-${repeat("a", length - 6)}`,
    `${repeat("1", Math.min(length, 10))}.${repeat("1", length - 11)}`,
    repeat("1", length),
    "255.255.255.255/32",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
  ].filter((candidate) => candidate.length === length);
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
  const at = (keyword: Bound["keyword"], limit: number, values: unknown[], past: unknown) =>
    bounds.push({ path, keyword, limit, at: values, past });
  if (field.type === "string" && field.maxLength !== undefined) {
    const values = field.format === "uuid" ? [crypto.randomUUID()] : stringsOf(field.maxLength);
    at("maxLength", field.maxLength, values, stringsOf(field.maxLength + 1)[0]);
  }
  if (field.type === "integer") {
    const max = field.maximum ?? (field as { exclusiveMaximum?: number }).exclusiveMaximum;
    const min = field.minimum ?? field.exclusiveMinimum;
    const inclusiveMax = field.maximum ?? (max === undefined ? undefined : max - 1);
    const inclusiveMin = field.minimum ?? (min === undefined ? undefined : min + 1);
    if (inclusiveMax !== undefined) at("maximum", inclusiveMax, [inclusiveMax], inclusiveMax + 1);
    if (inclusiveMin !== undefined) at("minimum", inclusiveMin, [inclusiveMin], inclusiveMin - 1);
  }
  if (field.type === "array" && field.items) {
    const maxItems = field.maxItems;
    if (maxItems !== undefined)
      at("maxItems", maxItems, [itemsOf(field.items, maxItems, example)], itemsOf(field.items, maxItems + 1, example));
    bounds.push(...boundsOf(field.items, example, [...path, 0]));
  }
  if (field.properties) {
    for (const [name, property] of Object.entries(field.properties))
      bounds.push(...boundsOf(property, example, [...path, name]));
  }
  const names = (field as { propertyNames?: JsonSchema }).propertyNames;
  if (names?.maxLength !== undefined) {
    const key = (length: number) => ({ [repeat("a", length)]: 0 });
    at("propertyNames.maxLength", names.maxLength, [key(names.maxLength)], key(names.maxLength + 1));
  }
  const maxProperties = (field as { maxProperties?: number }).maxProperties;
  if (maxProperties !== undefined)
    at("maxProperties", maxProperties, [fieldsOf(maxProperties)], fieldsOf(maxProperties + 1));
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
