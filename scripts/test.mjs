// `npm test`: every test. The production build, type check and lint, the API contract's lint, unit
// and integration tests (vitest, real PostgreSQL, the built app over HTTP), then the Playwright
// end-to-end flows in Chromium. Each step prints how long it took.
import { spawnSync } from "node:child_process";

const steps = [
  // Integration tests drive the production build over HTTP. It comes first, without a type check of
  // its own: the route types it generates (.next/types) are checked with everything else by tsc next.
  ["production build", ["node_modules/next/dist/bin/next", "build"], { SVC_BUILD_TYPE_CHECK: "0" }],
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
  ["unit and integration tests", ["node_modules/vitest/vitest.mjs", "run"]],
  // The flows seed their data through server modules, which import "server-only" (see server-only.mjs).
  ["end-to-end tests", ["--import", "./scripts/server-only.mjs", "node_modules/@playwright/test/cli.js", "test"]],
];

const seconds = (since) => `${Math.round((performance.now() - since) / 1000)} s`;
const began = performance.now();
for (const [label, args, env = {}] of steps) {
  console.log(`\n== ${label} ==`);
  const started = performance.now();
  const { status } = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (status !== 0) {
    console.error(`\n${label} failed (exit ${status}) after ${seconds(started)}.`);
    process.exit(status ?? 1);
  }
  console.log(`== ${label}: ${seconds(started)} ==`);
}
console.log(`\nAll tests passed in ${seconds(began)}.`);
