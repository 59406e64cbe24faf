import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { NoEvalValidator } from "./no-eval-validator";

const schema: RJSFSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["model"],
  properties: {
    model: { type: "string", minLength: 1 },
    top_k: { type: "integer", minimum: 1, maximum: 100 },
    limits: {
      type: "object",
      required: ["max_tokens"],
      properties: { max_tokens: { type: "integer", minimum: 1 }, stop: { type: "array", items: { type: "string" } } },
      additionalProperties: false,
    },
    mode: { $ref: "#/$defs/mode" },
    contact: { type: "string", format: "email" },
  },
  $defs: { mode: { enum: ["fast", "careful"] } },
};

const validator = new NoEvalValidator();
const check = (data: unknown) => validator.validateFormData(data, schema);

describe("NoEvalValidator", () => {
  it("finds no errors in valid data", () => {
    const { errors, errorSchema } = check({
      model: "m",
      top_k: 5,
      limits: { max_tokens: 10, stop: ["x"] },
      mode: "fast",
    });
    expect(errors).toEqual([]);
    expect(errorSchema).toEqual({});
  });

  it("reports a missing required property at the property, as rjsf's Ajv validator does", () => {
    const { errors, errorSchema } = check({ top_k: 5 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      name: "required",
      // At the top level rjsf's Ajv validator writes no leading dot here; nested ones have it.
      property: "model",
      message: "must have required property 'model'",
      stack: "must have required property 'model'",
      params: { missingProperty: "model" },
    });
    expect(errorSchema).toEqual({ model: { __errors: ["must have required property 'model'"] } });
  });

  it("uses the property's title in a required property's message", () => {
    const titled: RJSFSchema = {
      type: "object",
      required: ["top_k"],
      properties: { top_k: { type: "integer", title: "Top K" } },
    };
    const [error] = validator.validateFormData({}, titled).errors;
    expect(error?.stack).toBe("must have required property 'Top K'");
    expect(error?.property).toBe("top_k");
  });

  it("treats an undefined property as absent", () => {
    const { errors } = check({ model: undefined, top_k: undefined });
    expect(errors.map((e) => e.property)).toEqual(["model"]);
  });

  it("reports a wrong type", () => {
    const { errors } = check({ model: "m", top_k: "five" });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      name: "type",
      property: ".top_k",
      message: "must be integer",
      stack: ".top_k must be integer",
      params: { type: "integer" },
    });
  });

  it("reports a number below its minimum and above its maximum", () => {
    expect(check({ model: "m", top_k: 0 }).errors).toEqual([
      expect.objectContaining({
        name: "minimum",
        property: ".top_k",
        message: "must be >= 1",
        stack: ".top_k must be >= 1",
        params: { comparison: ">=", limit: 1 },
      }),
    ]);
    expect(check({ model: "m", top_k: 101 }).errors.map((e) => e.message)).toEqual(["must be <= 100"]);
    expect(check({ model: "" }).errors.map((e) => e.stack)).toEqual([".model must NOT have fewer than 1 characters"]);
  });

  it("reports errors inside nested objects and arrays at their paths", () => {
    const { errors, errorSchema } = check({ model: "m", limits: { max_tokens: 0, stop: ["ok", 3], extra: true } });
    expect(errors.map((e) => [e.property, e.message])).toEqual(
      expect.arrayContaining([
        [".limits.max_tokens", "must be >= 1"],
        [".limits.stop.1", "must be string"],
        [".limits", "must NOT have additional properties"],
      ]),
    );
    expect(errors).toHaveLength(3);
    expect(errorSchema).toMatchObject({
      limits: {
        __errors: ["must NOT have additional properties"],
        max_tokens: { __errors: ["must be >= 1"] },
        stop: { 1: { __errors: ["must be string"] } },
      },
    });
    expect(check({ model: "m", limits: {} }).errors.map((e) => e.property)).toEqual([".limits.max_tokens"]);
  });

  it("follows $ref and does not enforce format, like the server", () => {
    expect(check({ model: "m", mode: "slow" }).errors.map((e) => [e.property, e.message])).toEqual([
      [".mode", "must be equal to one of the allowed values"],
    ]);
    expect(check({ model: "m", contact: "not an email" }).errors).toEqual([]);
  });

  it("matches patterns in linear time, so no schema can freeze the tab", () => {
    // JavaScript's backtracking engine needs about 2^n steps for this value; RE2 takes one pass.
    const patterned: RJSFSchema = {
      type: "object",
      properties: { name: { type: "string", pattern: "^(a+)+$" } },
      patternProperties: { "^(x|x)+$": { type: "integer" } },
    };
    expect(
      validator
        .validateFormData({ name: `${"a".repeat(5000)}!` }, patterned)
        .errors.map((e) => [e.property, e.message]),
    ).toEqual([[".name", 'must match pattern "^(a+)+$"']]);
    expect(validator.validateFormData({ ["x".repeat(5000)]: "y" }, patterned).errors.map((e) => e.message)).toEqual([
      "must be integer",
    ]);
    // The global RegExp is back once the check is done.
    expect(new RegExp("a").exec("a")).not.toBeNull();
  });

  it("does not run format checks, whose url check backtracks", () => {
    const url: RJSFSchema = { type: "string", format: "url" };
    expect(validator.validateFormData(`http://${"a".repeat(5000)}-`, url).errors).toEqual([]);
  });

  it("reports a pattern RE2 cannot run, as the server refuses it", () => {
    const { errors } = validator.validateFormData(
      { name: "x" },
      { type: "object", properties: { name: { type: "string", pattern: "^(?!admin)" } } },
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.stack).toMatch(/regexp/);
  });

  it("passes the errors through transformErrors and merges customValidate's", () => {
    const { errors } = new NoEvalValidator<{ model?: string; top_k?: number }>().validateFormData(
      { model: "m", top_k: 0 },
      schema,
      (data, handler) => {
        if (data?.model === "m") handler.model?.addError("is reserved");
        return handler;
      },
      (list) => list.map((e) => ({ ...e, message: `${e.message}!` })),
    );
    expect(errors.map((e) => e.message ?? e.stack)).toEqual(["must be >= 1!", "is reserved"]);
  });

  it("reports a schema it cannot use instead of throwing", () => {
    const broken: RJSFSchema = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } };
    const { errors, errorSchema } = validator.validateFormData({ a: 1 }, broken);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.stack).toMatch(/Unresolved \$ref/);
    expect((errorSchema as Record<string, { __errors?: string[] }>).$schema?.__errors).toHaveLength(1);
  });

  it("tells whether data is valid against a schema, resolving references against the root schema", () => {
    expect(validator.isValid(schema, { model: "m", top_k: 3 }, schema)).toBe(true);
    expect(validator.isValid(schema, { top_k: 3 }, schema)).toBe(false);
    expect(validator.isValid({ type: "integer", minimum: 1 }, 0, schema)).toBe(false);
    expect(validator.isValid({ type: "integer", minimum: 1 }, 2, schema)).toBe(true);
    // A subschema whose $ref points into the root schema, as rjsf passes anyOf/oneOf options.
    expect(validator.isValid({ $ref: "#/$defs/mode" }, "careful", schema)).toBe(true);
    expect(validator.isValid({ $ref: "#/$defs/mode" }, "slow", schema)).toBe(false);
    expect(validator.isValid({ $ref: "#/$defs/absent" }, "x", schema)).toBe(false);
  });

  it("returns the raw errors in Ajv's shape from rawValidation", () => {
    expect(validator.rawValidation(schema, { model: "m" })).toEqual({ errors: undefined });
    const { errors } = validator.rawValidation(schema, { model: "m", top_k: 0 });
    expect(errors).toEqual([
      expect.objectContaining({
        keyword: "minimum",
        instancePath: "/top_k",
        schemaPath: "#/properties/top_k/minimum",
        message: "must be >= 1",
      }),
    ]);
  });

  it("never evaluates code", () => {
    const original = globalThis.Function;
    const trap = new Proxy(original, {
      construct() {
        throw new Error("new Function was called");
      },
      apply() {
        throw new Error("Function was called");
      },
    });
    globalThis.Function = trap;
    try {
      const fresh = new NoEvalValidator();
      expect(fresh.validateFormData({ model: "m", top_k: 0 }, schema).errors).toHaveLength(1);
      expect(fresh.isValid(schema, { model: "m" }, schema)).toBe(true);
    } finally {
      globalThis.Function = original;
    }
  });
});
