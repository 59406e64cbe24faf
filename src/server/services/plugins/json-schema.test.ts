import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { SETTINGS_SCHEMA_MAX_BYTES } from "@/lib/schemas/plugins";
import { CHECK_BUDGET_MS, CheckBudget, checkSettings, schemaProblems, validationProblems } from "./json-schema";
import { EXPONENTIAL_DEFS, nestedArrays } from "@/test/hostile-schemas";

// Tenants' settings schemas are untrusted: none of them may hold the process, reach the network,
// or interfere with another tenant's schema. These tests fail by hanging (the test timeout) when
// a check is not bounded.

const check = (schema: object, value: unknown) => checkSettings(schema, value, "default_settings").problems;

describe("settings schemas as untrusted data", () => {
  it("matches a backtracking pattern in linear time", () => {
    // JavaScript's own engine needs about 2^n steps for n "a"s here; 5,000 would never end.
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
    expect(check(schema, { name: `${"a".repeat(5000)}!` })).toEqual([
      { path: "default_settings.name", message: 'must match pattern "^(a+)+$"' },
    ]);
    expect(check(schema, { name: "a".repeat(5000) })).toEqual([]);
  });

  it("runs patternProperties and propertyNames on the same engine", () => {
    const key = `${"a".repeat(5000)}!`;
    const schema = {
      type: "object",
      patternProperties: { "^(a|a)+$": { type: "integer" } },
      propertyNames: { pattern: "^(([a-z])+.)+[A-Z]([a-z])+$" },
    };
    expect(check(schema, { [key]: "x" }).map((p) => p.message)).toEqual([
      'must match pattern "^(([a-z])+.)+[A-Z]([a-z])+$"',
      "property name must be valid",
    ]);
    expect(
      check({ type: "object", patternProperties: { "^(a|a)+$": { type: "integer" } } }, { ["a".repeat(5000)]: "x" }),
    ).toEqual([{ path: `default_settings.${"a".repeat(5000)}`, message: "must be integer" }]);
  });

  it("refuses patterns that need backtracking, naming the schema", () => {
    for (const pattern of ["^(?=a)a$", "(a)\\1", "(?<!a)b"]) {
      const [problem] = schemaProblems({ type: "string", pattern }, new CheckBudget());
      expect(problem?.path).toBe("settings_schema");
      expect(problem?.message).toMatch(/^is not a valid JSON Schema: .*regexp/);
    }
  });

  it("keeps what JavaScript patterns mean where RE2 has the same syntax", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "string", pattern: "^(?<year>\\d{4})-[\\p{L}_]+$" },
        tag: { type: "string", pattern: "\\u00e9" },
      },
    };
    expect(check(schema, { id: "2026-été", tag: "café" })).toEqual([]);
    expect(check(schema, { id: "26-x" }).map((p) => p.path)).toEqual(["default_settings.id"]);
  });

  describe("references", () => {
    const hits: string[] = [];
    const server = http.createServer((request, response) => {
      hits.push(request.url ?? "");
      response.end(JSON.stringify({ type: "string" }));
    });
    const listening = new Promise<string>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
    );
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("never fetches a remote $ref or $schema, and refuses the schema", async () => {
      const base = await listening;
      for (const schema of [
        { $ref: `${base}/schema.json` },
        { type: "object", properties: { a: { $ref: `${base}/defs.json#/a` } } },
        { $id: `${base}/root.json`, $ref: "other.json" },
        { $dynamicRef: `${base}/dyn.json#meta` },
      ]) {
        const [problem] = schemaProblems(schema, new CheckBudget());
        expect(problem?.message, JSON.stringify(schema)).toMatch(
          /^is not a valid JSON Schema: (can't resolve reference|"\$dynamicRef" only supports hash fragment)/,
        );
      }
      expect(schemaProblems({ $schema: `${base}/meta.json` }, new CheckBudget())).toEqual([
        {
          path: "settings_schema.$schema",
          message: "must be https://json-schema.org/draft/2020-12/schema (draft 2020-12) or absent",
        },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(hits).toEqual([]);
    });
  });

  it("lets every schema use any $id, whoever else used it", () => {
    const first = { $id: "https://example.com/settings", type: "object", properties: { a: { type: "integer" } } };
    const second = { $id: "https://example.com/settings", type: "object", properties: { a: { type: "string" } } };
    expect(check(first, { a: 1 })).toEqual([]);
    expect(check(second, { a: "x" })).toEqual([]);
    // Each is still checked by its own rules.
    expect(check(first, { a: "x" }).map((p) => p.path)).toEqual(["default_settings.a"]);
    expect(check(second, { a: 1 }).map((p) => p.path)).toEqual(["default_settings.a"]);
  });

  it("resolves local references and $defs", () => {
    const schema = {
      $defs: { port: { type: "integer", minimum: 1, maximum: 65535 } },
      type: "object",
      properties: { port: { $ref: "#/$defs/port" } },
    };
    expect(check(schema, { port: 443 })).toEqual([]);
    expect(check(schema, { port: 0 })).toEqual([{ path: "default_settings.port", message: "must be >= 1" }]);
  });

  it("stops work that is exponential in the data at the time budget, and says so", () => {
    const schema = { $defs: EXPONENTIAL_DEFS, $ref: "#/$defs/n" };
    const budget = new CheckBudget();
    expect(schemaProblems(schema, budget)).toEqual([]);
    expect(validationProblems(schema, nestedArrays(60), "default_settings", budget)).toEqual([
      { path: "default_settings", message: `could not be checked within ${CHECK_BUDGET_MS} ms` },
    ]);
    // The budget is the request's: what comes after in the same request is refused at once.
    expect(validationProblems({ type: "string" }, "fine", "plugin_settings.other", budget)).toEqual([
      { path: "plugin_settings.other", message: `could not be checked within ${CHECK_BUDGET_MS} ms` },
    ]);
    expect(validationProblems({ type: "string" }, "fine", "plugin_settings.other", new CheckBudget())).toEqual([]);
  });

  it("caps a schema's size and depth, and takes only draft 2020-12", () => {
    const big = { description: "x".repeat(SETTINGS_SCHEMA_MAX_BYTES) };
    expect(schemaProblems(big, new CheckBudget())).toEqual([
      { path: "settings_schema", message: "must be at most 32 KiB of JSON" },
    ]);
    const deep = Array.from({ length: 40 }).reduce<object>((inner) => ({ not: inner }), {});
    expect(schemaProblems(deep, new CheckBudget())).toEqual([
      { path: "settings_schema", message: "must not be nested deeper than 32 levels" },
    ]);
    expect(schemaProblems({ $schema: "http://json-schema.org/draft-07/schema#" }, new CheckBudget())[0]?.path).toBe(
      "settings_schema.$schema",
    );
    expect(
      schemaProblems({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }, new CheckBudget()),
    ).toEqual([]);
  });

  it("looks only at a value's own properties", () => {
    expect(check({ type: "object", required: ["constructor", "toString"] }, {}).map((p) => p.message)).toEqual([
      "must have required property 'constructor'",
      "must have required property 'toString'",
    ]);
  });

  it("names at most 20 problems", () => {
    const schema = { type: "array", items: { type: "integer" } };
    expect(
      check(
        schema,
        Array.from({ length: 500 }, () => "x"),
      ),
    ).toHaveLength(20);
  });

  it("reports a stored schema it cannot compile as a problem of the value, not a fault", () => {
    // Accepted before patterns ran on RE2.
    expect(
      validationProblems(
        { type: "string", pattern: "^(?!admin).*$" },
        "x",
        "plugin_settings.com.acme.crm",
        new CheckBudget(),
      ),
    ).toEqual([
      {
        path: "plugin_settings.com.acme.crm",
        message: expect.stringMatching(
          /^cannot be checked: the plugin.s settings_schema is not valid today: .*regexp/,
        ) as unknown,
      },
    ]);
  });
});
