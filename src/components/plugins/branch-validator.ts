import { dereference, format, validate, type Schema, type ValidationResult } from "@cfworker/json-schema";
import type { RJSFSchema, ValidationData, ValidatorType } from "@rjsf/utils";
import { linearRegExp } from "@/lib/linear-regexp";

// Why this exists: rjsf needs a validator to build a form, not only to report problems. It asks
// which oneOf/anyOf option and which if/then/else branch the data matches (isValid), and that
// takes a JSON Schema validator in the browser. Why it is so small: it reports nothing. The
// server's own validator judges the settings (settings-form.tsx asks it), so the console and the
// API cannot disagree, and nothing here mimics its messages. It interprets the schema with
// @cfworker/json-schema rather than compiling it (the CSP forbids 'unsafe-eval'), and runs
// patterns on RE2, so no pattern can freeze the tab.

// Formats are hints, as on the server; and @cfworker/json-schema's "url" check backtracks.
for (const name of Object.keys(format)) delete format[name as keyof typeof format];

const BASE = new URL("https://settings.invalid/schema");
// Where a subschema is placed beside the root schema, so that its "#/..." references reach the root.
const BESIDE_ROOT = "/__subschema";

/** Stands in for RegExp while validating: @cfworker/json-schema makes patterns with `new RegExp`. */
function LinearRegExp(pattern: string) {
  return linearRegExp(pattern);
}

/** `data` against `schema`, its references resolved against `root`. Throws on a schema it cannot use. */
function check(schema: RJSFSchema, data: unknown, root: RJSFSchema, shortCircuit: boolean): ValidationResult {
  // Own copies (dereferencing marks the objects it resolves); data as JSON, undefined fields left out.
  const copy = (value: unknown) => (value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown));
  const lookup = dereference(copy(root ?? schema) as Schema, Object.create(null), BASE);
  const own = copy(schema) as Schema;
  dereference(own, lookup, BASE, BESIDE_ROOT);
  const original = globalThis.RegExp;
  globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  try {
    return validate(copy(data), own, "2020-12", lookup, shortCircuit);
  } finally {
    globalThis.RegExp = original;
  }
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
