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
    // The global RegExp is back once a check is done, even one that threw.
    expect(branchValidator.isValid({ type: "string", pattern: "^(?!admin)" }, "x", root)).toBe(false);
    expect(globalThis.RegExp.name).toBe("RegExp");
    expect(/a/.exec("a")).not.toBeNull();
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
