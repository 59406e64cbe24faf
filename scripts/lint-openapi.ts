// `npm test`'s lint of the API contract: the OpenAPI document the app serves, written to a folder of
// its own as openapi.json (the name the overrides of .spectral.yaml match), linted by Spectral with
// spectral:oas and the OWASP API Security ruleset. Any error fails; a warning is shown.
// Run with tsx and ./scripts/server-only.mjs, as the app's server modules want.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openApiDocument } from "@/server/rest/openapi";

const folder = mkdtempSync(join(tmpdir(), "svc-openapi-"));
try {
  const document = join(folder, "openapi.json");
  writeFileSync(document, JSON.stringify(openApiDocument(), null, 2));
  const spectral = "node_modules/@stoplight/spectral-cli/dist/index.js";
  const { status } = spawnSync(
    process.execPath,
    [spectral, "lint", "--ruleset", ".spectral.yaml", "--fail-severity", "error", document],
    { stdio: "inherit" },
  );
  process.exitCode = status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
