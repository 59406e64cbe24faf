// `npm test`: every test. Type check and lint, the API contract's lint, the production build, unit
// and integration tests (vitest, real PostgreSQL, the built app over HTTP), then the Playwright
// end-to-end flows in Chromium.
import { spawnSync } from "node:child_process";

const steps = [
  ["type check", ["node_modules/typescript/bin/tsc", "--noEmit"]],
  ["lint", ["node_modules/eslint/bin/eslint.js", "."]],
  ["format check", ["node_modules/prettier/bin/prettier.cjs", "--check", "--log-level", "warn", "."]],
  // Unused files, exports and dependencies (knip.jsonc).
  ["dead code", ["node_modules/knip/bin/knip.js"]],
  // The OpenAPI document under Spectral's OpenAPI and OWASP API Security rules (.spectral.yaml).
  [
    "API contract lint",
    ["node_modules/tsx/dist/cli.mjs", "--import", "./scripts/server-only.mjs", "scripts/lint-openapi.ts"],
  ],
  // Integration tests drive the production build over HTTP, so it comes first. It keeps its own type
  // check: only it sees the route types Next.js generates during the build.
  ["production build", ["node_modules/next/dist/bin/next", "build"]],
  ["unit and integration tests", ["node_modules/vitest/vitest.mjs", "run"]],
  // The flows seed their data through server modules, which import "server-only" (see server-only.mjs).
  ["end-to-end tests", ["--import", "./scripts/server-only.mjs", "node_modules/@playwright/test/cli.js", "test"]],
];

for (const [label, args] of steps) {
  console.log(`\n== ${label} ==`);
  const { status } = spawnSync(process.execPath, args, { stdio: "inherit" });
  if (status !== 0) {
    console.error(`\n${label} failed (exit ${status}).`);
    process.exit(status ?? 1);
  }
}
console.log("\nAll tests passed.");
