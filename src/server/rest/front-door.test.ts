import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DomainError } from "@/server/errors";
import { METHODS } from "@/server/operations/operation";
import { allowOf, endpointAt, operationAt } from "./front-door";
import { docsPathOfTag } from "./docs-paths";
import { ROUTES } from "./registry";

// front-door.ts answers unknown /api paths and wrong methods before Next.js sees them, so its idea
// of the endpoints under /api must be Next.js's: every route file and page there, with the methods
// it exports. The REST operations have one catch-all route, which finds each in the same index.

const API = path.resolve("src/app/api");
const REST_ROUTE = path.join(API, "[...path]", "route.ts");

function endpointFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory()
      ? endpointFiles(full)
      : entry.name === "route.ts" || entry.name === "page.tsx"
        ? [full]
        : [];
  });
}

/**
 * A request path the file serves: a sample value for each dynamic segment (the API reference's tag
 * pages exist for the registry's tags only: a tag of it).
 */
const samplePath = (file: string) =>
  `/api/${path.relative(API, path.dirname(file))}`
    .replace("docs/[tag]", docsPathOfTag(ROUTES[0]?.tag ?? "").slice("/api/".length))
    .replace(/\[\.\.\.[a-z_]+\]/g, "one/two")
    .replace(/\[[a-z_]+\]/g, "sample-1");

/** The methods a file serves: a page GET; a route file what it exports. */
function exportedMethods(file: string): string[] {
  const text = readFileSync(file, "utf8");
  if (file.endsWith("page.tsx")) return ["GET"];
  const exported = [...text.matchAll(/export (?:const \{([^}]*)\}|\{([^}]*)\}|(?:async )?function (\w+))/g)]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? "")
    .join(",");
  return ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((method) => new RegExp(`\\b${method}\\b`).test(exported));
}

/** A path parameter's value in a request, and as the operation gets it. */
const PARAM_VALUE = "a b/ü";

describe("front door endpoints", () => {
  const files = endpointFiles(API).filter((file) => file !== REST_ROUTE);
  const restPaths = [...new Set(ROUTES.map((route) => route.path))];

  it.each(files.map((file) => [path.relative(API, file), file]))("knows %s and its methods", (_name, file) => {
    const endpoint = endpointAt(samplePath(file));
    expect(endpoint, samplePath(file)).toBeDefined();
    expect([...(endpoint?.methods ?? [])].sort()).toEqual(exportedMethods(file).sort());
  });

  it("hands every method to the REST route", () => {
    expect(exportedMethods(REST_ROUTE).sort()).toEqual([...METHODS].sort());
  });

  it.each(restPaths)("finds the operations at %s with their path parameters", (restPath) => {
    const names = [...restPath.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const requested = restPath.replace(/\{\w+\}/g, encodeURIComponent(PARAM_VALUE));
    const operations = ROUTES.filter((route) => route.path === restPath);
    expect(endpointAt(requested)?.path).toBe(restPath);
    expect([...(endpointAt(requested)?.methods ?? [])].sort()).toEqual(operations.map((o) => o.method).sort());
    for (const operation of operations) {
      expect(operationAt(operation.method, requested)).toEqual({
        operation,
        params: Object.fromEntries(names.map((name) => [name, PARAM_VALUE])),
      });
    }
  });

  it("finds no operation where the front door refuses, nor at an endpoint that is not one", () => {
    const codeOf = (found: ReturnType<typeof operationAt>) => (found instanceof DomainError ? found.code : undefined);
    expect(codeOf(operationAt("GET", "/api/v1/nope"))).toBe("not_found");
    expect(codeOf(operationAt("DELETE", "/api/health"))).toBe("method_not_allowed");
    expect(codeOf(operationAt("GET", "/api/v1/roles/%zz"))).toBe("validation_failed");
    expect(codeOf(operationAt("GET", "/api/openapi.json"))).toBe("not_found");
  });

  it("picks static segments over parameters, as Next.js does", () => {
    expect(endpointAt("/api/v1/models/lookup")?.path).toBe("/api/v1/models/lookup");
    expect(endpointAt("/api/v1/models/42")?.path).toBe("/api/v1/models/{model_config_id}");
    // Next.js compares static segments still percent-encoded: %6De is not "me".
    expect(endpointAt("/api/v1/%6De")).toBeUndefined();
  });

  it("knows no other path", () => {
    for (const unknown of [
      "/api",
      "/api/v1",
      "/api/v1/nope",
      "/api/v1/roles/x/y",
      "/api/trpc",
      "/api/auth",
      "/api/health/x",
      "/api/docs/no-such-tag",
      "/api/docs/api-keys/x",
    ])
      expect(endpointAt(unknown), unknown).toBeUndefined();
  });

  it("takes a path with repeated and trailing slashes for the path without them", () => {
    expect(endpointAt("/api/v1/me/")?.path).toBe("/api/v1/me");
    expect(endpointAt("/api//v1/me")?.path).toBe("/api/v1/me");
  });

  it("allows HEAD with GET, and OPTIONS everywhere", () => {
    const health = endpointAt("/api/health");
    expect(health && allowOf(health)).toEqual(["GET", "HEAD", "OPTIONS"]);
    const roll = endpointAt("/api/admin/users/api-keys/k1/roll");
    expect(roll && allowOf(roll)).toEqual(["POST", "OPTIONS"]);
  });
});
