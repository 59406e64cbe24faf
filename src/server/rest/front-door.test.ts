import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allowOf, endpointAt } from "./front-door";
import { docsPathOfTag } from "./docs-paths";
import { ROUTES, routesAt } from "./registry";
import { restPathOf } from "@/test/route-files";

// The front door answers unknown paths and wrong methods itself, so its idea of the endpoints
// under /api must be Next.js's: every route file and page there, with the methods it exports.

const API = path.resolve("src/app/api");

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

/** The methods a file serves: a page GET; a route file what it exports (the registry's, for REST). */
function exportedMethods(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const rest = restPathOf(text);
  if (rest) return routesAt(rest).map((r) => r.method);
  if (file.endsWith("page.tsx")) return ["GET"];
  const exported = [...text.matchAll(/export (?:const \{([^}]*)\}|\{([^}]*)\}|(?:async )?function (\w+))/g)]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? "")
    .join(",");
  return ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((method) => new RegExp(`\\b${method}\\b`).test(exported));
}

describe("front door endpoints", () => {
  const files = endpointFiles(API);

  it.each(files.map((file) => [path.relative(API, file), file]))("knows %s and its methods", (_name, file) => {
    const endpoint = endpointAt(samplePath(file));
    expect(endpoint, samplePath(file)).toBeDefined();
    expect([...(endpoint?.methods ?? [])].sort()).toEqual(exportedMethods(file).sort());
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
