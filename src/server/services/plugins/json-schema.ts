import "server-only";
// The ".js" lets plain Node ESM (the Playwright runner loading seed helpers) resolve it too.
import Ajv2020, { type ErrorObject } from "ajv/dist/2020.js";
import type { FieldError } from "@/server/errors";

// JSON Schema (draft 2020-12) checks for plugin settings. Schemas are compiled once per content.

const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: true });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
const MAX_CACHED = 500;

const fieldErrors = (errors: ErrorObject[] | null | undefined, root: string): FieldError[] =>
  (errors ?? []).map((e) => ({
    path: [root, ...e.instancePath.split("/").filter(Boolean)].join("."),
    message: e.message ?? "is not valid",
  }));

/** Problems that make `schema` not a valid JSON Schema (empty when it is one). */
export function schemaProblems(schema: unknown, root = "settings_schema"): FieldError[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [{ path: root, message: "must be an object" }];
  if (!ajv.validateSchema(schema)) return fieldErrors(ajv.errors, root).map((e) => ({ ...e, message: `is not a valid JSON Schema: ${e.message}` }));
  try {
    ajv.compile(schema);
    return [];
  } catch (error) {
    return [{ path: root, message: `is not a valid JSON Schema: ${(error as Error).message}` }];
  }
}

/** Problems of `value` against `schema` (a schema already known to be valid). */
export function validationProblems(schema: object, value: unknown, root: string): FieldError[] {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    if (compiled.size >= MAX_CACHED) compiled.clear();
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate(value) ? [] : fieldErrors(validate.errors, root);
}
