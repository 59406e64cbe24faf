import { dereference, schemaMapKeyword, validate, type Schema, type ValidationResult } from "@cfworker/json-schema";
import type { RJSFSchema, ValidationData, ValidatorType } from "@rjsf/utils";
import { linearRegExp } from "@/lib/linear-regexp";

// The validator rjsf needs to pick the oneOf/anyOf option or if/then/else branch the data matches.
// It reports no problems of its own: the server judges settings (settings-form.tsx asks it), so the
// console and the API cannot disagree. It interprets the schema (@cfworker/json-schema) rather than
// compiling it, as the CSP forbids 'unsafe-eval', and runs patterns on RE2 so none can freeze the
// tab. See docs/decisions/009-tenant-json-schemas.md.

const BASE = new URL("https://settings.invalid/schema");
// Where a subschema is placed beside the root schema, so that its "#/..." references reach the root.
const BESIDE_ROOT = "/__subschema";

// Keywords whose values are data, not schemas, and which no "$ref" can reach: left as they are.
const DATA_KEYWORDS = new Set(["const", "enum", "default"]);
// Keywords whose values map names to schemas (draft 7's "dependencies" too, which the validator applies).
const isSchemaMap = (keyword: string) => schemaMapKeyword[keyword] === true || keyword === "dependencies";

/** Every string in `data`: its string values and its property names, the texts a pattern can meet. */
function textsOf(data: unknown, texts = new Set<string>()): Set<string> {
  if (typeof data === "string") texts.add(data);
  else if (Array.isArray(data)) for (const item of data) textsOf(item, texts);
  else if (typeof data === "object" && data !== null) {
    for (const [key, value] of Object.entries(data)) {
      texts.add(key);
      textsOf(value, texts);
    }
  }
  return texts;
}

/** Escapes every code point, so the pattern is literal whatever the text holds. */
const literal = (text: string) => Array.from(text, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`).join("");

/**
 * A pattern that matches exactly those of `texts` that `pattern` matches on RE2, and nothing else.
 * @cfworker/json-schema compiles patterns with JavaScript's engine: given only anchored literals,
 * that engine cannot backtrack for long. `distinct` tells apart the patterns of one patternProperties.
 */
function decided(pattern: string, texts: Set<string>, distinct = 0): string {
  let matcher;
  try {
    matcher = linearRegExp(pattern);
  } catch {
    // RE2 cannot run it (lookaround, backreferences): a pattern JavaScript's engine refuses too, so
    // the check still fails where the pattern is reached, and only there.
    return `(${distinct}`;
  }
  const matching = [...texts].filter((text) => matcher.test(text)).map(literal);
  // [^\s\S] matches nothing: a first alternative that keeps the result distinct and never empty.
  return `^(?:[^\\s\\S]{${distinct + 1}}${matching.map((m) => `|${m}`).join("")})$`;
}

/**
 * Rewrites, in place, the schema's regex keywords for `texts`: each `pattern` and `patternProperties`
 * key decided on RE2 beforehand, and `format` dropped (formats are hints, as on the server; and some
 * of @cfworker/json-schema's format checks backtrack). Data keywords are left as they are.
 */
function decidePatterns(schema: unknown, texts: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) decidePatterns(item, texts);
    return;
  }
  if (typeof schema !== "object" || schema === null) return;
  const keywords = schema as Record<string, unknown>;
  delete keywords.format;
  // Read as text, as JavaScript's RegExp would read it.
  if (keywords.pattern !== undefined) keywords.pattern = decided(String(keywords.pattern), texts);
  const byPattern = keywords.patternProperties;
  if (typeof byPattern === "object" && byPattern !== null && !Array.isArray(byPattern)) {
    keywords.patternProperties = Object.fromEntries(
      Object.entries(byPattern).map(([pattern, sub], i) => [decided(pattern, texts, i), sub]),
    );
  }
  for (const [keyword, value] of Object.entries(keywords)) {
    if (DATA_KEYWORDS.has(keyword)) continue;
    if (isSchemaMap(keyword) && typeof value === "object" && value !== null) {
      for (const sub of Object.values(value)) decidePatterns(sub, texts);
    } else decidePatterns(value, texts);
  }
}

/** `data` against `schema`, its references resolved against `root`. Throws on a schema it cannot use. */
function check(schema: RJSFSchema, data: unknown, root: RJSFSchema, shortCircuit: boolean): ValidationResult {
  // Own copies (dereferencing marks the objects it resolves, and patterns are rewritten for the
  // data); data as JSON, undefined fields left out.
  const copy = (value: unknown) => (value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown));
  const instance = copy(data);
  const texts = textsOf(instance);
  const rootCopy = copy(root ?? schema) as Schema;
  const lookup = dereference(rootCopy, Object.create(null), BASE);
  const own = copy(schema) as Schema;
  dereference(own, lookup, BASE, BESIDE_ROOT);
  decidePatterns(rootCopy, texts);
  decidePatterns(own, texts);
  return validate(instance, own, "2020-12", lookup, shortCircuit);
}

const NOT_SATISFIED = "does not satisfy the schema";

export const branchValidator: ValidatorType = {
  isValid(schema, data, root) {
    try {
      return check(schema, data, root, true).valid;
    } catch {
      return false; // a schema it cannot use matches nothing; the server's check says what is wrong
    }
  },
  rawValidation<Result>(schema: RJSFSchema, data?: unknown) {
    try {
      const { valid, errors } = check(schema, data, schema, false);
      return { errors: valid ? undefined : (errors as Result[]) };
    } catch (error) {
      return { validationError: error as Error };
    }
  },
  // Not used by the settings form (rendered with noValidate): the server's answer says why.
  validateFormData(data, schema): ValidationData<unknown> {
    if (branchValidator.isValid(schema, data, schema)) return { errors: [], errorSchema: {} };
    return { errors: [{ message: NOT_SATISFIED, stack: NOT_SATISFIED }], errorSchema: { __errors: [NOT_SATISFIED] } };
  },
};
