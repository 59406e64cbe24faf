import { describe, expect, it } from "vitest";
import { ERRORS } from "@/lib/errors";
import { openApiDocument } from "./openapi";
import { ROUTES } from "./registry";

describe("OpenAPI document", () => {
  const doc = openApiDocument();

  it("is OpenAPI 3.1 with the X-API-KEY scheme", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: "apiKey", in: "header", name: "X-API-KEY" });
  });

  it("describes every registered route, with its permission and errors", () => {
    for (const route of ROUTES) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()] as Record<string, unknown> | undefined;
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation?.operationId).toBe(route.id);
      if (typeof route.access === "object") expect(operation?.["x-required-permission"]).toBe(route.access.permission);
      const responses = operation?.responses as Record<string, unknown>;
      expect(Object.keys(responses)).toContain(String(route.status ?? 200));
      for (const code of route.errors ?? []) expect(Object.keys(responses)).toContain(String(ERRORS[code].status));
    }
    const operationIds = ROUTES.map((r) => r.id);
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it("takes the request and response schemas from the validating zod schemas", () => {
    const create = doc.paths["/api/admin/users/api-keys"]?.post as {
      requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean } } } };
      responses: Record<string, { content?: { "application/json": { schema: { properties: Record<string, unknown> } } } }>;
    };
    const body = create.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties).sort()).toEqual(["expires_at", "name", "scopes"]);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(create.responses["201"]?.content?.["application/json"].schema.properties ?? {})).toContain("raw_key");
    const revoke = doc.paths["/api/admin/users/api-keys/{key_id}"]?.delete as { parameters: { name: string; in: string; required: boolean }[] };
    expect(revoke.parameters).toEqual([expect.objectContaining({ name: "key_id", in: "path", required: true })]);
  });
});
