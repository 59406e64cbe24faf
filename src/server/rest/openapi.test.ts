import { describe, expect, it } from "vitest";
import { z } from "zod";
import packageJson from "../../../package.json";
import { ERRORS } from "@/lib/errors";
import { errorGroups, openApiDocument, TAGS } from "./openapi";
import { rateLimitsOf } from "./openapi-errors";
import { ROUTES } from "./registry";
import { unboundedIn } from "@/test/schema-bounds";

// The document's shape, in-process. openapi.http.test.ts runs the integrators' tools (swagger-parser,
// Redocly, openapi-typescript, openapi-fetch) against the document the app serves.

type Json = Record<string, unknown>;

const doc = openApiDocument();
const components = doc.components as unknown as Record<string, Record<string, Json>>;

const operationOf = (path: string, method: string) => doc.paths[path]?.[method.toLowerCase()] as Json;

/** What a `#/components/...` reference names. */
function follow(value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== "string") return value;
  const [, , kind = "", name = ""] = ref.split("/");
  const target = components[kind]?.[name];
  if (!target) throw new Error(`unresolved ${ref}`);
  return target;
}

/** Every `$ref` in the document, with where it is. */
function refsIn(value: unknown, at = "#"): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsIn(item, `${at}/${index}`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === "$ref" && typeof item === "string" ? [{ at, ref: item }] : refsIn(item, `${at}/${key}`),
  );
}

const refs = refsIn(doc);

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1, versioned like the package, licensed, and describes every tag", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(packageJson.version);
    expect(doc.info.license.name).toBeTruthy();
    expect(doc.tags.map((t) => t.name).sort()).toEqual([...new Set(ROUTES.map((r) => r.tag))].sort());
    for (const tag of doc.tags) expect(tag.description, tag.name).toBe(TAGS[tag.name]);
  });

  it("names the X-API-KEY header and the console's session cookie as they really are", () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-KEY" });
    expect(doc.components.securitySchemes.session).toMatchObject({
      type: "apiKey",
      in: "cookie",
      name: "__Host-authjs.session-token",
    });
  });

  it("resolves every reference from the document's root, and has no definitions elsewhere", () => {
    expect(refs.length).toBeGreaterThan(0);
    for (const { at, ref } of refs) {
      expect(ref, at).toMatch(/^#\/components\/(schemas|parameters|responses|headers)\/[A-Za-z0-9._-]+$/);
      expect(() => follow({ $ref: ref }), `${at}: ${ref}`).not.toThrow();
    }
    expect(JSON.stringify(doc)).not.toContain('"$defs"');
  });

  it("has no unused components", () => {
    const used = new Set(refs.map((r) => r.ref));
    for (const kind of ["schemas", "parameters", "responses", "headers"]) {
      for (const name of Object.keys(components[kind] ?? {}))
        expect(used, `${kind}/${name}`).toContain(`#/components/${kind}/${name}`);
    }
  });

  it("bounds every string, list and integer of every request and answer", () => {
    // A failure names the schema: bound it where it is declared (text(max), list(item, max) and the
    // other helpers of src/lib/schemas/common.ts), and validation enforces the same bound.
    expect(unboundedIn(doc)).toEqual([]);
    expect(unboundedIn({ type: ["string", "null"] })).toEqual(["#: a string without maxLength"]);
    expect(components.schemas?.Organization).toMatchObject({
      properties: {
        id: { type: "string", format: "uuid", maxLength: 36 },
        name: { type: "string", maxLength: 255 },
        display_name: { anyOf: [{ type: "string", maxLength: 500 }, { type: "null" }] },
      },
    });
    expect(components.parameters?.limit).toMatchObject({ schema: { type: "integer", format: "int32" } });
    const grants = follow(operationOf("/api/v1/users/{user_id}/roles", "GET").responses as Json);
    expect(JSON.stringify(grants)).toContain('"maxItems":100');
    expect(components.schemas?.Grant).toMatchObject({
      properties: { id: { type: "integer", format: "int32", minimum: 1, maximum: 2_147_483_647 } },
    });
  });

  it("declares the RateLimit fields on every 2xx and 4xx answer an API key's or an address's limit applies to, and the 429", () => {
    const limited = ROUTES.filter((r) => rateLimitsOf(r).length > 0);
    expect(limited.map((r) => r.id)).toEqual(expect.arrayContaining(["getMe", "revokeLeakedApiKeys"]));
    expect(ROUTES.filter((r) => rateLimitsOf(r).length === 0).map((r) => r.id)).toEqual([
      "health",
      "ready",
      "getMetrics",
    ]);
    for (const route of limited) {
      const responses = operationOf(route.path, route.method).responses as Record<string, Json>;
      expect(Object.keys(responses), route.id).toContain("429");
      for (const [status, response] of Object.entries(responses)) {
        const headers = Object.keys(follow(response).headers as Json);
        if (/^[24]/.test(status))
          expect(headers, `${route.id} ${status}`).toEqual(expect.arrayContaining(["RateLimit", "RateLimit-Policy"]));
        if (status === "429") expect(headers, route.id).toContain("Retry-After");
      }
    }
  });

  it("holds the JSON value schema once, as a component that admits any JSON value", () => {
    expect(components.schemas?.JsonValue).toEqual({ description: expect.stringContaining("Any JSON value") });
    // Settings, plugins, orchestrators, messages and LLM configs all carry free JSON values.
    const holders = new Set(
      refs
        .filter((r) => r.ref === "#/components/schemas/JsonValue" && r.at.startsWith("#/components/schemas/"))
        .map((r) => r.at.split("/")[3]),
    );
    expect([...holders].sort()).toEqual(
      expect.arrayContaining([
        "EffectiveSetting",
        "LlmConfig",
        "Message",
        "OrchestratorInstance",
        "OrgSetting",
        "PlatformSetting",
        "Plugin",
      ]),
    );
  });

  it("makes each schema named with .meta({ id }) a component, with examples its own zod schema accepts", () => {
    const named = Object.keys(components.schemas ?? {}).filter((name) => name !== "Problem" && name !== "JsonValue");
    expect(named).toEqual(expect.arrayContaining(["ApiKey", "Organization", "OrchestratorInstance", "User", "Role"]));
    for (const name of named) {
      const schema = z.globalRegistry._idmap.get(name);
      expect(schema, name).toBeDefined();
      const examples = (components.schemas?.[name]?.examples ?? []) as unknown[];
      expect(examples.length, `${name} has an example`).toBeGreaterThan(0);
      for (const example of examples)
        expect(schema && z.safeParse(schema, example).success, `${name}: ${JSON.stringify(example)}`).toBe(true);
    }
    const get = operationOf("/api/v1/organizations/{org_id}", "GET");
    const ok = (get.responses as Record<string, { content: Record<string, { schema: Json }> }>)["200"];
    expect(ok?.content["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/Organization" });
  });

  it("shares the parameters and responses several operations use, and keeps one-off ones inline", () => {
    expect(Object.keys(components.parameters ?? {})).toEqual(expect.arrayContaining(["org_id", "limit", "cursor"]));
    expect(components.parameters?.limit).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 100, default: 50 },
    });
    expect(components.responses?.Unauthenticated).toBeDefined();
    const lookup = operationOf("/api/v1/models/lookup", "GET");
    expect(lookup.parameters).toEqual([expect.objectContaining({ name: "name", in: "query", required: true })]);
  });

  it("describes every route, with its permission, and an error response for each status it can fail with", () => {
    for (const route of ROUTES) {
      const operation = operationOf(route.path, route.method);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.id);
      if (typeof route.access === "object") expect(operation["x-required-permission"]).toBe(route.access.permission);
      const responses = operation.responses as Record<string, Json>;
      expect(Object.keys(responses)).toContain(String(route.status ?? 200));
      for (const code of route.errors ?? [])
        expect(Object.keys(responses), `${route.id} ${code}`).toContain(String(ERRORS[code].status));
      for (const { status, codes } of errorGroups(route)) {
        const response = follow(responses[String(status)] ?? {}) as {
          headers: Record<string, Json>;
          content: Record<string, { schema: { allOf: Json[] } }>;
        };
        const schema = response.content["application/problem+json"]?.schema;
        expect(schema?.allOf[0]).toEqual({ $ref: "#/components/schemas/Problem" });
        expect(schema?.allOf[1]).toMatchObject({ properties: { status: { const: status }, code: { enum: codes } } });
        for (const code of codes)
          for (const header of ERRORS[code].headers)
            expect(Object.keys(response.headers), `${route.id} ${code}`).toContain(header);
      }
    }
    expect(new Set(ROUTES.map((r) => r.id)).size).toBe(ROUTES.length);
  });

  it("lists only the errors an operation can meet", () => {
    const statuses = (id: string) => Object.keys((operationOf(...pathOf(id)).responses as Json) ?? {});
    const pathOf = (id: string): [string, string] => {
      const route = ROUTES.find((r) => r.id === id);
      if (!route) throw new Error(id);
      return [route.path, route.method];
    };
    // Liveness needs no credentials and no database.
    expect(statuses("health")).toEqual(["200"]);
    // Any key: no permission to lack, no input to refuse; but a rate limit, and its networks.
    expect(statuses("getMe")).toEqual(["200", "401", "403", "429", "503"]);
    // Another tenant's organization looks missing; a body can be too large or not JSON.
    expect(statuses("updateOrganization")).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "429",
      "503",
    ]);
    // The metrics scraper has a token, or is on the app's machine; no key, no database.
    expect(statuses("getMetrics")).toEqual(["200", "401", "403"]);
    // No credentials, but a body, a limit per address and the database.
    expect(statuses("revokeLeakedApiKeys")).toEqual(["200", "400", "413", "415", "429", "503"]);
    // Every authenticated operation can meet a bad key.
    for (const route of ROUTES.filter((r) => r.access !== "public"))
      expect(statuses(route.id), route.id).toContain("401");
    // Every operation a key may call can meet a key over its rate limit, or used from outside its networks.
    for (const route of ROUTES.filter((r) => r.access !== "public" && r.access !== "metrics")) {
      expect(statuses(route.id), route.id).toContain("429");
      expect(errorGroups(route).find((group) => group.status === 403)?.codes, route.id).toContain("ip_not_allowed");
    }
  });

  it("takes the request and response schemas from the validating zod schemas", () => {
    const create = operationOf("/api/admin/users/api-keys", "POST") as {
      requestBody: {
        content: {
          "application/json": { schema: { properties: Record<string, unknown>; additionalProperties: boolean } };
        };
      };
      responses: Record<
        string,
        { headers: Record<string, unknown>; content: { "application/json": { schema: Json } } }
      >;
    };
    const body = create.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties).sort()).toEqual([
      "allowed_cidrs",
      "allowed_org_ids",
      "credits",
      "expires_at",
      "meta",
      "name",
      "rate_limit",
      "scopes",
    ]);
    expect(body.additionalProperties).toBe(false);
    const created = create.responses["201"];
    expect(Object.keys(follow(created?.content["application/json"].schema ?? {}).properties as Json)).toContain(
      "raw_key",
    );
    expect(Object.keys(created?.headers ?? {}).sort()).toEqual([
      "Cache-Control",
      "Credits-Remaining",
      "Location",
      "RateLimit",
      "RateLimit-Policy",
      "X-Request-Id",
    ]);
    const revoke = operationOf("/api/admin/users/api-keys/{key_id}", "DELETE") as { parameters: Json[] };
    expect(revoke.parameters.map(follow)).toEqual([
      expect.objectContaining({ name: "key_id", in: "path", required: true }),
    ]);
  });
});
