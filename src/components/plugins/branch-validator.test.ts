import { format } from "@cfworker/json-schema";
import { createSchemaUtils, type RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { branchValidator } from "./branch-validator";

// What rjsf asks of the console's validator while it builds a settings form: which oneOf/anyOf
// option and which if/then/else branch the data matches. Problems are the server's to report.

const root: RJSFSchema = {
  type: "object",
  properties: {
    retriever: {
      oneOf: [{ $ref: "#/$defs/web" }, { $ref: "#/$defs/index" }],
    },
    output: {
      anyOf: [
        { type: "object", properties: { format: { const: "text" } }, required: ["format"] },
        {
          type: "object",
          properties: { format: { const: "json" }, indent: { type: "integer" } },
          required: ["format"],
        },
      ],
    },
    handle: { type: "string", pattern: "^(a+)+$" },
  },
  $defs: {
    web: {
      type: "object",
      properties: { engine: { enum: ["bing", "brave"] }, top_k: { type: "integer", minimum: 1 } },
      required: ["engine"],
    },
    index: {
      type: "object",
      properties: { index: { type: "string", pattern: "^idx-[a-z]+$" } },
      required: ["index"],
    },
  },
  if: { properties: { handle: { const: "admin" } }, required: ["handle"] },
  then: { properties: { reason: { type: "string" } }, required: ["reason"] },
};
const utils = createSchemaUtils(branchValidator, root);
const options = (key: "retriever" | "output") => {
  const property = (root.properties as Record<string, RJSFSchema>)[key]!;
  return (property.oneOf ?? property.anyOf) as RJSFSchema[];
};
// JavaScript's own engine needs about 2^n steps to refuse n "a"s and a "!" with ^(a+)+$.
const BACKTRACKS = `${"a".repeat(5000)}!`;

describe("branchValidator", () => {
  it("picks the oneOf option the data matches, its $ref resolved against the root schema", () => {
    expect(utils.getFirstMatchingOption({ engine: "brave", top_k: 3 }, options("retriever"))).toBe(0);
    expect(utils.getFirstMatchingOption({ index: "idx-docs" }, options("retriever"))).toBe(1);
    expect(branchValidator.isValid({ $ref: "#/$defs/index" }, { index: "IDX" }, root)).toBe(false);
    expect(branchValidator.isValid({ $ref: "#/$defs/absent" }, {}, root)).toBe(false);
  });

  it("picks the anyOf option the data matches", () => {
    expect(utils.getFirstMatchingOption({ format: "json", indent: 2 }, options("output"))).toBe(1);
    expect(utils.getFirstMatchingOption({ format: "text" }, options("output"))).toBe(0);
  });

  it("takes the if/then branch only when the condition holds", () => {
    const withReason = (handle: string) => Object.keys(utils.retrieveSchema(root, { handle }).properties ?? {});
    expect(withReason("admin")).toContain("reason");
    expect(withReason("aaa")).not.toContain("reason");
  });

  it("treats a field left empty (undefined) as absent, as the saved JSON has it", () => {
    expect(branchValidator.isValid({ $ref: "#/$defs/web" }, { engine: "bing", top_k: undefined }, root)).toBe(true);
    expect(branchValidator.isValid({ $ref: "#/$defs/web" }, { engine: undefined }, root)).toBe(false);
  });

  it("matches patterns in linear time, so no schema can freeze the tab", () => {
    expect(branchValidator.isValid({ type: "string", pattern: "^(a+)+$" }, BACKTRACKS, root)).toBe(false);
    expect(branchValidator.isValid({ type: "string", pattern: "^(a+)+$" }, "a".repeat(5000), root)).toBe(true);
    const keyed: RJSFSchema = { type: "object", patternProperties: { "^(a|a)+$": { type: "integer" } } };
    expect(branchValidator.isValid(keyed, { [BACKTRACKS.slice(0, -1)]: "x" }, keyed)).toBe(false);
    expect(branchValidator.isValid({ type: "string", format: "url" }, `http://${"a".repeat(5000)}-`, root)).toBe(true);
  });

  it("never replaces the global RegExp, not even for a check that throws", () => {
    const original = Object.getOwnPropertyDescriptor(globalThis, "RegExp")!;
    let replaced = 0;
    Object.defineProperty(globalThis, "RegExp", {
      configurable: true,
      get: () => original.value as RegExpConstructor,
      set: () => void (replaced += 1),
    });
    try {
      expect(branchValidator.isValid({ type: "string", pattern: "^(?!admin)" }, "x", root)).toBe(false);
      expect(branchValidator.isValid(root, { handle: BACKTRACKS }, root)).toBe(false);
      expect(branchValidator.isValid(root, { handle: "aaa" }, root)).toBe(true);
    } finally {
      Object.defineProperty(globalThis, "RegExp", original);
    }
    expect(replaced).toBe(0);
    expect(globalThis.RegExp.name).toBe("RegExp");
    expect(/a/.exec("a")).not.toBeNull();
  });

  it("leaves @cfworker/json-schema's format checks as they are, and ignores formats", () => {
    expect(typeof format.url).toBe("function");
    expect(branchValidator.isValid({ type: "string", format: "regex" }, "(a+)+$(?<!", root)).toBe(true);
    expect(branchValidator.isValid({ type: "string", format: "email" }, "not an email", root)).toBe(true);
    // A property named "format" is not the keyword.
    const named: RJSFSchema = { type: "object", properties: { format: { const: "json" } } };
    expect(branchValidator.isValid(named, { format: "text" }, named)).toBe(false);
  });

  it("applies patterns wherever the schema puts them, with the validator's own semantics", () => {
    const closed: RJSFSchema = {
      type: "object",
      patternProperties: { "^x-[a-z]+$": { type: "integer" }, "^x-": { minimum: 0 } },
      additionalProperties: false,
    };
    expect(branchValidator.isValid(closed, { "x-a": 1, "x-b": 2 }, closed)).toBe(true);
    expect(branchValidator.isValid(closed, { "x-a": -1 }, closed)).toBe(false);
    expect(branchValidator.isValid(closed, { "x-A": 1.5 }, closed)).toBe(true); // "^x-" alone applies
    expect(branchValidator.isValid(closed, { "x-1": 1, y: 1 }, closed)).toBe(false);
    const unevaluated: RJSFSchema = {
      allOf: [{ patternProperties: { "^a": true } }],
      unevaluatedProperties: false,
    };
    expect(branchValidator.isValid(unevaluated, { ab: 1 }, unevaluated)).toBe(true);
    expect(branchValidator.isValid(unevaluated, { ba: 1 }, unevaluated)).toBe(false);
    const names: RJSFSchema = { type: "object", propertyNames: { pattern: "^[a-z]+$" } };
    expect(branchValidator.isValid(names, { abc: "ABC" }, names)).toBe(true);
    expect(branchValidator.isValid(names, { ABC: "abc" }, names)).toBe(false);
    const either: RJSFSchema = { oneOf: [{ pattern: "^a" }, { not: { pattern: "b$" } }] };
    expect(branchValidator.isValid(either, "ab", either)).toBe(true);
    expect(branchValidator.isValid(either, "ac", either)).toBe(false);
    expect(branchValidator.isValid(either, "cb", either)).toBe(false);
    // Not a string, the pattern is read as text, as JavaScript would read it: still on RE2.
    const listed = { type: "string", pattern: ["^(a+)+$"] } as unknown as RJSFSchema;
    expect(branchValidator.isValid(listed, BACKTRACKS, listed)).toBe(false);
  });

  it("matches texts holding pattern syntax, astral and lone surrogate characters literally", () => {
    const any: RJSFSchema = { type: "array", items: { pattern: "^.(?:.)?\\.?" } };
    expect(branchValidator.isValid(any, ["a.b", "(", "[^]", "\\u{61}", "😀", "\ud800", "$|"], any)).toBe(true);
    const emoji: RJSFSchema = { type: "object", patternProperties: { "^😀$": { const: 1 } } };
    expect(branchValidator.isValid(emoji, { "😀": 1, "\ud83d": 2, "😀😀": 2 }, emoji)).toBe(true);
    expect(branchValidator.isValid(emoji, { "😀": 2 }, emoji)).toBe(false);
  });

  it("fails a check only where a pattern RE2 cannot run is reached", () => {
    const lookahead: RJSFSchema = {
      type: "object",
      properties: { name: { pattern: "^(?!admin)" }, kind: { enum: ["a", "b"] } },
      patternProperties: { "^(?=x)": true },
    };
    const kind = { $ref: "#/properties/kind" };
    expect(branchValidator.isValid(kind, "a", lookahead)).toBe(true);
    expect(branchValidator.isValid({ $ref: "#/properties/name" }, 1, lookahead)).toBe(true);
    expect(branchValidator.isValid({ $ref: "#/properties/name" }, "x", lookahead)).toBe(false);
    expect(branchValidator.rawValidation(lookahead, { kind: "a" }).validationError).toBeInstanceOf(Error);
  });

  it("says data is invalid, with no reshaped problems, when asked to validate a form", () => {
    expect(branchValidator.validateFormData({ handle: "aaa" }, root)).toEqual({ errors: [], errorSchema: {} });
    const { errors } = branchValidator.validateFormData({ handle: BACKTRACKS }, root);
    expect(errors.map((e) => e.stack)).toEqual(["does not satisfy the schema"]);
    expect(branchValidator.rawValidation(root, { handle: BACKTRACKS }).errors).not.toHaveLength(0);
  });

  it("never evaluates code", () => {
    const original = globalThis.Function;
    globalThis.Function = new Proxy(original, {
      construct() {
        throw new Error("new Function was called");
      },
      apply() {
        throw new Error("Function was called");
      },
    });
    try {
      expect(utils.getFirstMatchingOption({ index: "idx-a" }, options("retriever"))).toBe(1);
      expect(branchValidator.isValid(root, { handle: BACKTRACKS }, root)).toBe(false);
    } finally {
      globalThis.Function = original;
    }
  });
});
