// `npm test`: every test. Unit and integration tests (vitest, real PostgreSQL), then the
// production build, then the Playwright end-to-end flows against it in Chromium.
import { spawnSync } from "node:child_process";

const steps = [
  ["unit and integration tests", ["node_modules/vitest/vitest.mjs", "run"]],
  ["production build", ["node_modules/next/dist/bin/next", "build"]],
  ["end-to-end tests", ["node_modules/@playwright/test/cli.js", "test"]],
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
