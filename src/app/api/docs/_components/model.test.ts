import { describe, expect, it } from "vitest";
import { ERRORS } from "@/lib/errors";
import { accessText, errorGroups, openApiDocument, TAGS } from "@/server/rest/openapi";
import { ROUTES } from "@/server/rest/registry";
import { curlCommand, dereference, exampleOf, fieldRows, tagGroups, typeLabel } from "./model";

const doc = openApiDocument();
const groups = tagGroups(doc);
const operations = groups.flatMap((group) => group.operations);

describe("the API reference model", () => {
  it("shows every registered route once, under its described tag", () => {
    expect(operations.map((o) => o.id).sort()).toEqual(ROUTES.map((r) => r.id).sort());
    expect(groups.map((g) => g.name)).toEqual(Object.keys(TAGS).filter((tag) => ROUTES.some((r) => r.tag === tag)));
    for (const group of groups) expect(group.description).toBe(TAGS[group.name]);
    for (const route of ROUTES) {
      const operation = operations.find((o) => o.id === route.id);
      expect(operation?.tag).toBe(route.tag);
      expect(operation?.method).toBe(route.method);
      expect(operation?.success.status).toBe(route.status ?? 200);
    }
  });

  it("takes access and errors from the declaration, not from the description's prose", () => {
    for (const route of ROUTES) {
      const operation = operations.find((o) => o.id === route.id);
      expect(operation?.access).toEqual(route.access);
      // The description is the declared one: the access sentence the document appends is not in it.
      expect(operation?.paragraphs.join("\n\n")).toBe(route.description ?? "");
      expect(operation?.errors).toEqual(errorGroups(route));
      for (const group of operation?.errors ?? []) {
        expect(group.codes.length, `${route.id} ${group.status}`).toBeGreaterThan(0);
        for (const code of group.codes) expect(ERRORS[code].status).toBe(group.status);
      }
      for (const code of route.errors ?? []) expect(operation?.errors.flatMap((g) => g.codes)).toContain(code);
    }
    expect(accessText({ permission: "svc:org:read", org: "org_id" })).toBe(
      "Requires `svc:org:read` in the organization, or globally.",
    );
    expect(accessText({ permission: "svc:system:api_keys:write", sysAdmin: true })).toBe(
      "Requires a sys_admin holding `svc:system:api_keys:write`.",
    );
  });

  it("shows example bodies and responses that the route's own schemas accept", () => {
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

  it("uses the examples the schemas carry", () => {
    const create = operations.find((o) => o.id === "createApiKey");
    expect(exampleOf(create?.requestBody?.schema ?? {})).toMatchObject({ name: "ci-deploy" });
    const get = operations.find((o) => o.id === "getOrganization");
    expect(exampleOf(get?.success.schema ?? {})).toMatchObject({ name: "acme", tier: "pro" });
  });

  it("looks inside named schemas", () => {
    const setting = dereference({ $ref: "#/components/schemas/PlatformSetting" }, doc.components.schemas);
    const rows = fieldRows(setting);
    expect(rows.find((r) => r.path === "key")).toMatchObject({ type: "string", required: true });
    expect(rows.find((r) => r.path === "value")).toMatchObject({
      type: "any",
      description: expect.stringContaining("Any JSON value"),
    });
    expect(JSON.stringify(setting)).not.toContain("$ref");
  });

  it("stops at a schema met again inside itself", () => {
    const tree = {
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#/components/schemas/Tree" } } },
    };
    const expanded = dereference({ $ref: "#/components/schemas/Tree" }, { Tree: tree });
    expect(expanded.properties?.children?.items).toEqual({ $ref: "#/components/schemas/Tree" });
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

  it("builds curl commands with the X-API-KEY header and path parameters the route accepts", () => {
    const me = operations.find((o) => o.path === "/api/v1/me");
    expect(me && curlCommand(me)).toContain('-H "X-API-KEY: $SVC_API_KEY"');
    for (const operation of operations) {
      const command = curlCommand(operation);
      // An API key never goes in Authorization; the metrics scraper's own token does.
      if (operation.access === "metrics") expect(command).toContain('-H "Authorization: Bearer $SVC_METRICS_TOKEN"');
      else expect(command).not.toMatch(/-H "authorization:|bearer/i);
      const route = ROUTES.find((r) => r.id === operation.id);
      const pattern = new RegExp(`^${(route?.path ?? "").replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}$`);
      const url = command.split("\n")[0]?.match(/"\$SVC_URL([^"]+)"/)?.[1] ?? "";
      const match = url.match(pattern);
      expect(match, `${operation.id}: ${url}`).not.toBeNull();
      if (route?.params)
        expect(route.params.safeParse({ ...match?.groups }).success, `${operation.id}: ${url}`).toBe(true);
    }
  });
});
