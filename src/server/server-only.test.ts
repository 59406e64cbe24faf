import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Server modules hold secrets and database access: each one imports "server-only", so a console
// component that reached one at run time would fail the build instead of shipping it to browsers.

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

describe("server modules", () => {
  it("are all marked server-only", () => {
    const files = modules("src/server");
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) expect(readFileSync(file, "utf8"), file).toMatch(/^import "server-only";$/m);
  });
});
