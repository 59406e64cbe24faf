import { dereference, format, validate, type OutputUnit, type Schema } from "@cfworker/json-schema";
import {
  ANY_OF_KEY,
  createErrorHandler,
  getDefaultFormState,
  getUiOptions,
  ONE_OF_KEY,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorSchema,
  type ErrorTransformer,
  type FormContextType,
  type RJSFSchema,
  type RJSFValidationError,
  type StrictRJSFSchema,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";
import { linearRegExp, type LinearRegExp } from "@/lib/linear-regexp";

// An rjsf validator that never evaluates code, so the console runs under a Content-Security-Policy
// without 'unsafe-eval'. Ajv (which @rjsf/validator-ajv8 uses, and the server too) compiles each
// schema into a function with `new Function`; @cfworker/json-schema walks the schema instead.
// Its errors are reshaped into what Ajv would report (same messages, paths and params), so rjsf
// places them on the same fields and the preview reads like the server's answer. It checks draft
// 2020-12, like the server, and like the server it does not enforce `format`, and runs `pattern`
// on RE2 (no schema can make a pattern backtrack and freeze the tab). The server stays the
// authority: this is a live preview.

// @cfworker/json-schema runs its format checks even though nothing here enforces them, and its
// "url" check backtracks exponentially (a 30-character value takes seconds). Without its checks,
// a `format` is only a hint, as on the server.
for (const name of Object.keys(format)) delete format[name as keyof typeof format];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One problem, shaped like Ajv's ErrorObject (what `rawValidation` returns). */
export interface NoEvalError {
  keyword: string;
  /** JSON Pointer to the value, like "/limits/top_k" ("" for the whole value). */
  instancePath: string;
  /** Where the keyword is in the schema, like "#/properties/top_k/minimum". */
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
  /** The schema holding the keyword, when it could be found. */
  parentSchema?: Record<string, unknown>;
}

interface Prepared {
  schema: Schema;
  lookup: Record<string, Schema | boolean>;
}

// Schemas are resolved against this base; nothing is fetched.
const BASE_URI = new URL("https://no-eval-validator.invalid/schema");
// Where `isValid`'s schema sits beside its root schema, so its "#/..." references reach the root.
const SUBSCHEMA_POINTER = "/__rjsf_no_eval_subschema";
const MAX_PREPARED = 200;

const linearPatterns = new Map<string, LinearRegExp>();

/**
 * Stands in for RegExp while @cfworker/json-schema validates: it builds `pattern` and
 * `patternProperties` with `new RegExp(pattern, "u")` and offers no other way to match them.
 */
function LinearRegExpConstructor(pattern: string): LinearRegExp {
  let compiled = linearPatterns.get(pattern);
  if (!compiled) {
    compiled = linearRegExp(pattern);
    if (linearPatterns.size >= MAX_PREPARED) linearPatterns.clear();
    linearPatterns.set(pattern, compiled);
  }
  return compiled;
}

function withLinearPatterns<T>(task: () => T): T {
  const original = globalThis.RegExp;
  globalThis.RegExp = LinearRegExpConstructor as unknown as RegExpConstructor;
  try {
    return task();
  } finally {
    globalThis.RegExp = original;
  }
}

// Applicator keywords whose report only says "a subschema failed": the subschema's own errors,
// which follow, say what is wrong (Ajv reports those alone too).
const WRAPPERS = new Set([
  "$ref",
  "$recursiveRef",
  "allOf",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "prefixItems",
  "items",
  "additionalItems",
  "unevaluatedItems",
  "dependentSchemas",
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * `value` as JSON, as Ajv sees it: an object property that is undefined is absent; an undefined
 * array item or whole value becomes null (which fails the same type checks undefined fails).
 */
function toJson(value: unknown): Json {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toJson(item);
    return out;
  }
  if (typeof value === "boolean" || typeof value === "number" || typeof value === "string") return value;
  throw new Error(`Values of type "${typeof value}" cannot be validated.`);
}

/** A JSON Pointer ("#/a~1b/0", URI-encoded as @cfworker/json-schema writes it) as its segments. */
function pointerSegments(pointer: string): string[] {
  const path = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (path === "") return [];
  return path
    .split("/")
    .slice(1)
    .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
}

const toInstancePath = (location: string): string =>
  pointerSegments(location)
    .map((s) => `/${s.replace(/~/g, "~0").replace(/\//g, "~1")}`)
    .join("");

/** The schema object holding the keyword at `keywordLocation` (following $refs), if it can be found. */
function parentSchemaAt(prepared: Prepared, keywordLocation: string): Record<string, unknown> | undefined {
  const segments = pointerSegments(keywordLocation);
  let node: unknown = prepared.schema;
  for (const segment of segments.slice(0, -1)) {
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    if (segment === "$ref" && isRecord(node)) {
      const target = (node as Schema).__absolute_ref__;
      node = typeof target === "string" ? prepared.lookup[target] : undefined;
    } else if (segment === "$recursiveRef") {
      return undefined;
    } else {
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return isRecord(node) ? node : undefined;
}

/** The last quoted name in a @cfworker/json-schema message, like `Instance has "a" but does not have "b".` → b. */
const quoted = (message: string, which: "first" | "last"): string | undefined => {
  const match =
    which === "first" ? /"(.*?)"/.exec(message) : (/"([^"]*)"\.?$/.exec(message) ?? /.*"(.*)"/.exec(message));
  return match?.[1];
};

const numbersIn = (message: string): number[] => (message.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi) ?? []).map(Number);

const COMPARISONS = { minimum: ">=", maximum: "<=", exclusiveMinimum: ">", exclusiveMaximum: "<" } as const;

const COUNT_WORDS = {
  minLength: ["fewer", "characters"],
  maxLength: ["more", "characters"],
  minItems: ["fewer", "items"],
  maxItems: ["more", "items"],
  minProperties: ["fewer", "properties"],
  maxProperties: ["more", "properties"],
} as const;

/** @cfworker/json-schema's output units as Ajv-shaped errors (wrappers dropped). */
function toAjvErrors(units: OutputUnit[], prepared: Prepared): NoEvalError[] {
  const errors: NoEvalError[] = [];
  const seen = new Set<string>();
  units.forEach((unit, index) => {
    const { keyword, keywordLocation } = unit;
    const instancePath = toInstancePath(unit.instanceLocation);
    const parentSchema = parentSchemaAt(prepared, keywordLocation);
    const value = parentSchema?.[keyword];
    const push = (error: Omit<NoEvalError, "parentSchema">, parent = parentSchema) => {
      const key = `${error.keyword}\u0000${error.instancePath}\u0000${error.schemaPath}\u0000${JSON.stringify(error.params)}`;
      if (seen.has(key)) return;
      seen.add(key);
      errors.push(parent ? { ...error, parentSchema: parent } : error);
    };
    const simple = (message: string, params: Record<string, unknown> = {}) =>
      push({ keyword, instancePath, schemaPath: keywordLocation, params, message });

    if (WRAPPERS.has(keyword)) return;
    if (keyword === "false") {
      // A `false` subschema: say what it forbids, as Ajv does, at the object or array it applies to.
      const wrapper = units[index - 1];
      const at = wrapper ? toInstancePath(wrapper.instanceLocation) : instancePath;
      const wrapperParent = wrapper ? parentSchemaAt(prepared, wrapper.keywordLocation) : undefined;
      const name = pointerSegments(unit.instanceLocation).at(-1) ?? "";
      switch (wrapper?.keyword) {
        case "additionalProperties":
          return push(
            {
              keyword: "additionalProperties",
              instancePath: at,
              schemaPath: wrapper.keywordLocation,
              params: { additionalProperty: name },
              message: "must NOT have additional properties",
            },
            wrapperParent,
          );
        case "unevaluatedProperties":
          return push(
            {
              keyword: "unevaluatedProperties",
              instancePath: at,
              schemaPath: wrapper.keywordLocation,
              params: { unevaluatedProperty: name },
              message: "must NOT have unevaluated properties",
            },
            wrapperParent,
          );
        case "items":
        case "additionalItems":
        case "unevaluatedItems": {
          // Reported once per array: the items before the first one refused are allowed.
          const allowed = wrapper.keyword === "items" ? wrapperParent?.prefixItems : wrapperParent?.items;
          const len = Array.isArray(allowed) ? allowed.length : Number(name);
          return push(
            {
              keyword: wrapper.keyword,
              instancePath: at,
              schemaPath: wrapper.keywordLocation,
              params: { len },
              message: `must NOT have more than ${len} items`,
            },
            wrapperParent,
          );
        }
        default:
          return push({
            keyword: "false schema",
            instancePath,
            schemaPath: wrapper?.keywordLocation ?? keywordLocation,
            params: {},
            message: "boolean schema is false",
          });
      }
    }

    switch (keyword) {
      case "type": {
        const type = value ?? quoted(unit.error, "last");
        return simple(`must be ${Array.isArray(type) ? type.join(",") : String(type)}`, { type });
      }
      case "const":
        return simple("must be equal to constant", { allowedValue: value });
      case "enum":
        return simple("must be equal to one of the allowed values", { allowedValues: value });
      case "not":
        return simple("must NOT be valid");
      case "anyOf":
        return simple("must match a schema in anyOf");
      case "oneOf":
        return simple("must match exactly one schema in oneOf", { passingSchemas: null });
      case "if": {
        const clause = unit.error.includes('"then"') ? "then" : "else";
        return simple(`must match "${clause}" schema`, { failingKeyword: clause, ifClause: clause });
      }
      case "required": {
        const missingProperty = quoted(unit.error, "last") ?? "";
        return simple(`must have required property '${missingProperty}'`, { missingProperty });
      }
      case "dependentRequired":
      case "dependencies": {
        if (!unit.error.includes("does not have")) return; // the schema form of `dependencies` wraps its subschema's errors
        const property = quoted(unit.error, "first") ?? "";
        const missingProperty = quoted(unit.error, "last") ?? "";
        const listed = parentSchema?.[keyword];
        const all =
          isRecord(listed) && Array.isArray(listed[property]) ? (listed[property] as string[]) : [missingProperty];
        const deps = all.join(", ");
        const schemaPath =
          keyword === "dependentRequired"
            ? keywordLocation.replace(/\/dependantRequired$/, "/dependentRequired")
            : keywordLocation;
        return push({
          keyword,
          instancePath,
          schemaPath,
          params: { property, missingProperty, depsCount: all.length, deps },
          message: `must have ${all.length === 1 ? "property" : "properties"} ${deps} when property ${property} is present`,
        });
      }
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum": {
        const comparison = COMPARISONS[keyword];
        const limit = typeof value === "number" ? value : numbersIn(unit.error).at(-1);
        return simple(`must be ${comparison} ${limit}`, { comparison, limit });
      }
      case "multipleOf": {
        const multipleOf = typeof value === "number" ? value : numbersIn(unit.error).at(-1);
        return simple(`must be multiple of ${multipleOf}`, { multipleOf });
      }
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
      case "minProperties":
      case "maxProperties": {
        const [comparison, noun] = COUNT_WORDS[keyword];
        const limit = typeof value === "number" ? value : numbersIn(unit.error).at(-1);
        return simple(`must NOT have ${comparison} than ${limit} ${noun}`, { limit });
      }
      case "pattern":
        return simple(`must match pattern "${String(value)}"`, { pattern: value });
      case "uniqueItems": {
        const [j, i] = numbersIn(unit.error);
        return simple(`must NOT have duplicate items (items ## ${j} and ${i} are identical)`, { i, j });
      }
      case "contains":
        return simple("must contain at least 1 valid item(s)", { minContains: 1 });
      case "minContains":
      case "maxContains": {
        const min = typeof parentSchema?.minContains === "number" ? parentSchema.minContains : 1;
        const max = parentSchema?.maxContains;
        return simple(
          typeof max === "number"
            ? `must contain at least ${min} and no more than ${max} valid item(s)`
            : `must contain at least ${min} valid item(s)`,
          { minContains: min, maxContains: max },
        );
      }
      case "propertyNames":
        return simple("property name must be valid", { propertyName: quoted(unit.error, "first") });
      default:
        return simple(unit.error);
    }
  });
  return errors;
}

/** Like @rjsf/validator-ajv8: of errors under one anyOf/oneOf with the same message, keep the first. */
function filterDuplicateErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.reduce<RJSFValidationError[]>((kept, error) => {
    const { message, schemaPath } = error;
    const anyOf = schemaPath?.indexOf(`/${ANY_OF_KEY}/`) ?? -1;
    const oneOf = schemaPath?.indexOf(`/${ONE_OF_KEY}/`) ?? -1;
    const prefix = anyOf > 0 ? schemaPath?.slice(0, anyOf) : oneOf > 0 ? schemaPath?.slice(0, oneOf) : undefined;
    if (!prefix || !kept.some((e) => e.message === message && e.schemaPath?.startsWith(prefix))) kept.push(error);
    return kept;
  }, []);
}

/** A value at `path` inside a nested object (uiSchema lookups). */
function getIn(value: unknown, path: string[]): unknown {
  let node = value;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

const uiTitleAt = (uiSchema: unknown, path: string[]): string | undefined => {
  const node = getIn(uiSchema, path);
  return isRecord(node) ? getUiOptions(node as UiSchema).title : undefined;
};

/** Ajv-shaped errors as rjsf's errors, as @rjsf/validator-ajv8 makes them (titles, `stack`, `property`). */
export function toRjsfErrors(errors: NoEvalError[], uiSchema?: UiSchema, rootSchema?: unknown): RJSFValidationError[] {
  const list = errors.map((e): RJSFValidationError => {
    const { keyword, instancePath, params, schemaPath, parentSchema } = e;
    let { message } = e;
    let property = instancePath.replace(/\//g, ".");
    const parts = property.replace(/^\./, "").split(".").filter(Boolean);
    let stack = `${property} ${message}`.trim();
    let title = "";
    const names = [
      ...(typeof params.deps === "string" ? params.deps.split(", ") : []),
      params.missingProperty,
      params.property,
    ].filter((n): n is string => typeof n === "string" && n !== "");
    if (names.length > 0) {
      for (const name of names) {
        const found =
          uiTitleAt(uiSchema, [...parts, name]) ??
          (getIn(parentSchema, ["properties", name, "title"]) as string | undefined) ??
          (getIn(rootSchema, [...parts.flatMap((p) => ["properties", p]), "properties", name, "title"]) as
            string | undefined);
        if (typeof found === "string" && found !== "") {
          message = message.replace(`'${name}'`, `'${found}'`);
          title = found;
        }
      }
      stack = message;
    } else {
      const found =
        uiTitleAt(uiSchema, parts) ?? (typeof parentSchema?.title === "string" ? parentSchema.title : undefined);
      if (found) {
        stack = `'${found}' ${message}`.trim();
        title = found;
      }
    }
    if ("missingProperty" in params)
      property = property ? `${property}.${String(params.missingProperty)}` : String(params.missingProperty);
    return { name: keyword, property, message, params, stack, schemaPath, title };
  });
  return filterDuplicateErrors(list);
}

/** `ValidatorType` for rjsf that interprets JSON Schema (draft 2020-12) and never evaluates code. */
export class NoEvalValidator<
  T = unknown,
  S extends StrictRJSFSchema = RJSFSchema,
  F extends FormContextType = FormContextType,
> implements ValidatorType<T, S, F> {
  private prepared = new Map<string, Prepared>();

  /** `schema` ready to validate with: an own copy, its references resolved beside `rootSchema`'s. */
  private prepare(schema: S, rootSchema?: S): Prepared {
    const text = JSON.stringify(schema);
    const rootText = rootSchema === undefined || rootSchema === schema ? text : JSON.stringify(rootSchema);
    const withRoot = rootText !== text;
    const key = withRoot ? `${text}\u0000${rootText}` : text;
    const cached = this.prepared.get(key);
    if (cached) return cached;
    // Own copies: dereferencing marks the schema objects it resolves.
    const own = JSON.parse(text) as Schema;
    const lookup: Record<string, Schema | boolean> = Object.create(null);
    if (withRoot) {
      dereference(JSON.parse(rootText) as Schema, lookup, BASE_URI);
      dereference(own, lookup, BASE_URI, SUBSCHEMA_POINTER);
    } else {
      dereference(own, lookup, BASE_URI);
    }
    const prepared = { schema: own, lookup };
    if (this.prepared.size >= MAX_PREPARED) this.prepared.clear();
    this.prepared.set(key, prepared);
    return prepared;
  }

  private check(schema: S, formData: T | undefined, rootSchema?: S): NoEvalError[] {
    const prepared = this.prepare(schema, rootSchema);
    const result = withLinearPatterns(() =>
      validate(toJson(formData), prepared.schema, "2020-12", prepared.lookup, false),
    );
    return result.valid ? [] : toAjvErrors(result.errors, prepared);
  }

  reset(): void {
    this.prepared.clear();
  }

  rawValidation<Result = NoEvalError>(schema: S, formData?: T): { errors?: Result[]; validationError?: Error } {
    try {
      const errors = this.check(schema, formData);
      return { errors: errors.length > 0 ? (errors as Result[]) : undefined };
    } catch (error) {
      return { validationError: error instanceof Error ? error : new Error(String(error)) };
    }
  }

  validateFormData(
    formData: T | undefined,
    schema: S,
    customValidate?: CustomValidator<T, S, F>,
    transformErrors?: ErrorTransformer<T, S, F>,
    uiSchema?: UiSchema<T, S, F>,
  ): ValidationData<T> {
    const { errors: raw, validationError } = this.rawValidation<NoEvalError>(schema, formData);
    let errors = toRjsfErrors(raw ?? [], uiSchema as UiSchema | undefined, schema);
    if (validationError) errors = [...errors, { stack: validationError.message }];
    if (typeof transformErrors === "function") errors = transformErrors(errors, uiSchema);
    let errorSchema = toErrorSchema<T>(errors);
    if (validationError)
      errorSchema = { ...errorSchema, $schema: { __errors: [validationError.message] } } as ErrorSchema<T>;
    if (typeof customValidate !== "function") return { errors, errorSchema };
    // Custom validation sees the data with its undefined fields filled in, as with Ajv.
    const withDefaults = getDefaultFormState<T, S, F>(this, schema, formData, schema, true) as T;
    const handler = customValidate(withDefaults, createErrorHandler<T>(withDefaults), uiSchema, errorSchema);
    return validationDataMerge<T>({ errors, errorSchema }, unwrapErrorHandler<T>(handler));
  }

  isValid(schema: S, formData: T | undefined, rootSchema: S): boolean {
    try {
      return this.check(schema, formData, rootSchema).length === 0;
    } catch (error) {
      console.warn("Error encountered validating against a schema:", error);
      return false;
    }
  }
}

/** The validator the console's forms use. */
export const noEvalValidator = new NoEvalValidator();
