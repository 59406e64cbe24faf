import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTES } from "./registry";
import { restPathOf } from "@/test/route-files";

// Next.js finds route handlers by file; the registry is the source of truth. Each registered path
// has its file under src/app, and each file serves a registered path.

const APP = path.resolve("src/app");
const fileFor = (routePath: string) => path.join(APP, routePath.replace(/\{([a-z_]+)\}/g, "[$1]"), "route.ts");

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? routeFiles(full) : entry.name === "route.ts" ? [full] : [];
  });
}

describe("route files", () => {
  const paths = [...new Set(ROUTES.map((r) => r.path))];

  it("exist for every registered path and hand it to the REST wrapper", () => {
    for (const routePath of paths) {
      expect(restPathOf(readFileSync(fileFor(routePath), "utf8")), routePath).toBe(routePath);
    }
  });

  it("serve only registered paths", () => {
    const served = routeFiles(APP)
      .map((file) => restPathOf(readFileSync(file, "utf8")))
      .filter((p): p is string => p !== undefined);
    expect(served.sort()).toEqual([...paths].sort());
  });
});
