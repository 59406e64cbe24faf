import { describe, expect, it } from "vitest";
import { ERRORS } from "@/lib/errors";
import { openApiDocument } from "@/server/rest/openapi";
import { ROUTES } from "@/server/rest/registry";
import { curlCommand, exampleOf, fieldRows, tagGroups, typeLabel } from "./model";

const operations = tagGroups(openApiDocument()).flatMap((group) => group.operations);

describe("the API reference model", () => {
  it("shows every registered route once, under its tag", () => {
    expect(operations.map((o) => o.id).sort()).toEqual(ROUTES.map((r) => r.id).sort());
    for (const route of ROUTES) {
      const operation = operations.find((o) => o.id === route.id);
      expect(operation?.tag).toBe(route.tag);
      expect(operation?.method).toBe(route.method);
      expect(operation?.success.status).toBe(route.status ?? 200);
    }
  });

  it("reads each error response's codes, and they match their status", () => {
    for (const operation of operations) {
      for (const group of operation.errors) {
        expect(group.codes.length, `${operation.id} ${group.status}`).toBeGreaterThan(0);
        for (const code of group.codes) expect(ERRORS[code].status).toBe(group.status);
      }
    }
  });

  it("generates example bodies and responses that the route's own schemas accept", () => {
    for (const route of ROUTES) {
      const operation = operations.find((o) => o.id === route.id);
      if (route.body) {
        expect(operation?.requestBody, route.id).toBeDefined();
        const example = exampleOf(operation?.requestBody?.schema ?? {});
        expect(route.body.safeParse(example).success, `${route.id} body ${JSON.stringify(example)}`).toBe(true);
      }
      const response = exampleOf(operation?.success.schema ?? {});
      expect(route.response.safeParse(response).success, `${route.id} response ${JSON.stringify(response)}`).toBe(true);
    }
  });

  it("flattens nested fields and labels types readably", () => {
    const schema = {
      type: "object",
      required: ["data"],
      properties: {
        data: { type: "array", items: { type: "object", properties: { id: { type: "string", format: "uuid" } } } },
        next_cursor: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
    };
    expect(fieldRows(schema).map((r) => [r.path, r.type, r.required])).toEqual([
      ["data", "array of objects", true],
      ["data[].id", "string (uuid)", false],
      ["next_cursor", "string | null", false],
    ]);
    expect(typeLabel({ type: "string", enum: ["api_key", "session"] })).toBe('"api_key" | "session"');
  });

  it("builds curl commands with the X-API-KEY header, never a bearer token", () => {
    const me = operations.find((o) => o.path === "/api/v1/me");
    expect(me && curlCommand(me)).toContain('-H "X-API-KEY: $SVC_API_KEY"');
    for (const operation of operations) {
      expect(curlCommand(operation)).not.toMatch(/-H "authorization:|bearer/i);
      expect(curlCommand(operation).split("\n")[0], "path parameters are filled in").not.toMatch(/[{}]/);
    }
  });
});
