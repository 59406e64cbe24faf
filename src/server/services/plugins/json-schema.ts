import "server-only";
import vm from "node:vm";
// The ".js" lets plain Node ESM (the Playwright runner loading seed helpers) resolve it too.
import Ajv2020, { type ErrorObject, type Options, type ValidateFunction } from "ajv/dist/2020.js";
import { LRUCache } from "lru-cache";
import { linearRegExp } from "@/lib/linear-regexp";
import { SETTINGS_SCHEMA_MAX_BYTES, type SettingsCheck } from "@/lib/schemas/plugins";
import type { FieldError } from "@/server/errors";

// JSON Schema (draft 2020-12) checks for plugin settings. The schemas are tenants' data, not code to
// trust: Ajv compiles each one into a function, so everything a schema can make that function do
// is bounded here.
// - `pattern` and `patternProperties` run on RE2 (re2js), whose matching time is linear in the
//   input: no pattern can backtrack for minutes.
// - A schema is at most 32 KiB and 32 levels deep, declares draft 2020-12 or nothing, and is
//   compiled by an Ajv instance of its own: no `$id` registry is shared between schemas (so
//   between tenants), and nothing outside the schema can be referenced (Ajv is given no way to
//   load one, so a remote `$ref` is refused, never fetched).
// - Compiling and validating run under one time budget per request (500 ms): combinators and
//   recursive references can still make work exponential in the data, and the budget stops them
//   so other requests are served meanwhile.
// - Compiled validators are kept in a bounded LRU cache, keyed by the schema's text.

const MAX_SCHEMA_DEPTH = 32;
export const CHECK_BUDGET_MS = 500;
const MAX_REPORTED_ERRORS = 20;
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const SCHEMA_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  logger: false,
  // Formats are not enforced: a `format` is a hint to the console and to integrators.
  validateFormats: false,
  // `required` and friends look at own properties only, never at what Object.prototype has.
  ownProperties: true,
  // Ajv tells compiled patterns apart by their toString(), which linearRegExp gives.
  code: { regExp: Object.assign((pattern: string) => linearRegExp(pattern), { code: "linearRegExp" }) },
};

/** The draft 2020-12 meta-schema, compiled once, on first use. */
let metaValidator: ValidateFunction | undefined;
function metaSchema(): ValidateFunction {
  metaValidator ??= new Ajv2020(SCHEMA_OPTIONS).getSchema(DRAFT_2020_12);
  if (!metaValidator) throw new Error("Ajv has no draft 2020-12 meta-schema");
  return metaValidator;
}

/** A tenant's schema compiled alone: no meta-schemas, no registry of other schemas' `$id`s. */
const compileAlone = (schema: object): ValidateFunction =>
  new Ajv2020({ ...SCHEMA_OPTIONS, meta: false, validateSchema: false, addUsedSchema: false }).compile(schema);

const compiled = new LRUCache<string, ValidateFunction>({
  max: 500,
  // Keys are the schemas' text: about 8 MiB of schemas (a few times that of compiled code) at most.
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_value, key) => Math.max(1, key.length),
});

/** The schema's text: its cache key. Drops a root `$schema` (the compiled-alone Ajv knows no meta-schema). */
const cacheKey = (schema: object): string => {
  const { $schema: _declared, ...rest } = schema as Record<string, unknown>;
  return JSON.stringify(rest);
};

class CheckTimeExceeded extends Error {
  constructor() {
    super(`The check took over ${CHECK_BUDGET_MS} ms.`);
    this.name = "CheckTimeExceeded";
  }
}

// Synchronous work (compiling, validating) stopped at a deadline: V8 interrupts a script run with
// a timeout, host functions it calls included, which nothing else in Node does for a synchronous call.
const sandbox = vm.createContext({ task: undefined as (() => unknown) | undefined });
const runTask = new vm.Script("task()");

/** One request's time for schema work: every compile and validation it makes draws on it. */
export class CheckBudget {
  private spent = 0;

  run<T>(task: () => T): T {
    const remaining = Math.ceil(CHECK_BUDGET_MS - this.spent);
    if (remaining <= 0) throw new CheckTimeExceeded();
    const started = performance.now();
    sandbox.task = task;
    try {
      return runTask.runInContext(sandbox, { timeout: remaining }) as T;
    } catch (error) {
      if ((error as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new CheckTimeExceeded();
      throw error;
    } finally {
      sandbox.task = undefined;
      this.spent += performance.now() - started;
    }
  }
}

const fieldErrors = (errors: ErrorObject[] | null | undefined, root: string): FieldError[] =>
  (errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((e) => ({
    path: [
      root,
      ...e.instancePath
        .split("/")
        .filter(Boolean)
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~")),
    ].join("."),
    message: e.message ?? "is not valid",
  }));

/** Levels of nesting of a JSON value, counted up to `stop`. */
function depthOf(value: unknown, stop: number): number {
  if (typeof value !== "object" || value === null) return 0;
  if (stop <= 0) return 1;
  let deepest = 0;
  for (const item of Object.values(value)) deepest = Math.max(deepest, depthOf(item, stop - 1));
  return 1 + deepest;
}

const problem = (path: string, message: string): FieldError[] => [{ path, message }];

/** The validator of a schema, compiled within the budget (or from the cache). */
function validatorFor(schema: object, budget: CheckBudget): ValidateFunction {
  const key = cacheKey(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const parsed = JSON.parse(key) as object;
    validate = budget.run(() => compileAlone(parsed));
    compiled.set(key, validate);
  }
  return validate;
}

const timeProblem = (root: string): FieldError[] => problem(root, `could not be checked within ${CHECK_BUDGET_MS} ms`);

/** Problems that make `schema` unusable as a settings schema (empty when it is fine). */
export function schemaProblems(schema: unknown, budget: CheckBudget, root = "settings_schema"): FieldError[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return problem(root, "must be an object");
  const text = JSON.stringify(schema);
  if (Buffer.byteLength(text) > SETTINGS_SCHEMA_MAX_BYTES)
    return problem(root, `must be at most ${SETTINGS_SCHEMA_MAX_BYTES / 1024} KiB of JSON`);
  if (depthOf(schema, MAX_SCHEMA_DEPTH + 1) > MAX_SCHEMA_DEPTH)
    return problem(root, `must not be nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  const declared = (schema as Record<string, unknown>).$schema;
  if (declared !== undefined && declared !== DRAFT_2020_12 && declared !== `${DRAFT_2020_12}#`) {
    return problem(`${root}.$schema`, `must be ${DRAFT_2020_12} (draft 2020-12) or absent`);
  }
  try {
    const meta = metaSchema();
    if (!budget.run(() => meta(schema))) {
      return fieldErrors(meta.errors, root).map((e) => ({ ...e, message: `is not a valid JSON Schema: ${e.message}` }));
    }
    validatorFor(schema, budget);
    return [];
  } catch (error) {
    if (error instanceof CheckTimeExceeded) return timeProblem(root);
    return problem(root, `is not a valid JSON Schema: ${(error as Error).message}`);
  }
}

/**
 * Problems of `value` against `schema`, named under `root`. A schema that cannot be compiled (one
 * stored before today's rules) or a check over the budget is a problem of `root` too.
 */
export function validationProblems(schema: object, value: unknown, root: string, budget: CheckBudget): FieldError[] {
  try {
    const validate = validatorFor(schema, budget);
    return budget.run(() => validate(value)) ? [] : fieldErrors(validate.errors, root);
  } catch (error) {
    if (error instanceof CheckTimeExceeded) return timeProblem(root);
    return problem(
      root,
      `cannot be checked: the plugin's settings_schema is not valid today: ${(error as Error).message}`,
    );
  }
}

/**
 * A settings schema, then a value against it, checked as registering a plugin checks its
 * default_settings (and the console's live check asks): the schema's problems, else the value's.
 */
export function checkSettings(schema: object, value: unknown, root: string, budget = new CheckBudget()): SettingsCheck {
  const problems = schemaProblems(schema, budget);
  if (problems.length > 0) return { schema_valid: false, problems };
  return { schema_valid: true, problems: validationProblems(schema, value, root, budget) };
}
