// `npm test`: every test. The production build, type check and lint, the API contract's lint, unit
// and integration tests (vitest, real PostgreSQL, the built app over HTTP), then the Playwright
// end-to-end flows in Chromium. Each step prints how long it took.
import { spawn } from "node:child_process";

// Integration tests drive the production build over HTTP. It comes first, without a type check of
// its own: the route types it generates (.next/types) are checked with everything else by tsc next.
const build = ["production build", ["node_modules/next/dist/bin/next", "build"], { SVC_BUILD_TYPE_CHECK: "0" }];
// The static checks read the sources and nothing another one writes, so they run two at a time (one a
// core), the longest first; each one's output is printed whole once it is done.
const checks = [
  ["lint", ["node_modules/eslint/bin/eslint.js", "."]],
  ["type check", ["node_modules/typescript/bin/tsc", "--noEmit"]],
  ["format check", ["node_modules/prettier/bin/prettier.cjs", "--check", "--log-level", "warn", "."]],
  // The OpenAPI document under Spectral's OpenAPI and OWASP API Security rules (.spectral.yaml).
  [
    "API contract lint",
    ["node_modules/tsx/dist/cli.mjs", "--import", "./scripts/server-only.mjs", "scripts/lint-openapi.ts"],
  ],
  // Unused files, exports and dependencies (knip.jsonc).
  ["dead code", ["node_modules/knip/bin/knip.js"]],
];
const tests = [
  ["unit and integration tests", ["node_modules/vitest/vitest.mjs", "run"]],
  // The flows seed their data through server modules, which import "server-only" (see server-only.mjs).
  ["end-to-end tests", ["--import", "./scripts/server-only.mjs", "node_modules/@playwright/test/cli.js", "test"]],
];
const CONCURRENT_CHECKS = 2;

const seconds = (since) => `${Math.round((performance.now() - since) / 1000)} s`;

/** Runs a step to its end: its output straight through, or (`buffered`) kept and printed at its end. */
function run([label, args, env = {}], buffered = false) {
  if (!buffered) console.log(`\n== ${label} ==`);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...env },
    });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => {
      if (buffered) {
        console.log(`\n== ${label} ==`);
        process.stdout.write(Buffer.concat(output));
      }
      const status = code ?? (signal ? 1 : 0);
      if (status !== 0) console.error(`\n${label} failed (exit ${code ?? signal}) after ${seconds(started)}.`);
      else console.log(`== ${label}: ${seconds(started)} ==`);
      resolve(status);
    });
  });
}

/** Runs the checks `CONCURRENT_CHECKS` at a time; the first failing one's status, once all are done. */
async function runChecks() {
  const queue = [...checks];
  const statuses = [];
  const worker = async () => {
    for (let step = queue.shift(); step; step = queue.shift()) statuses.push(await run(step, true));
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT_CHECKS }, worker));
  console.log(`== static checks, ${CONCURRENT_CHECKS} at a time: ${seconds(started)} ==`);
  return statuses.find((status) => status !== 0) ?? 0;
}

const began = performance.now();
for (const step of [build, runChecks, ...tests]) {
  const status = typeof step === "function" ? await step() : await run(step);
  if (status !== 0) process.exit(status);
}
console.log(`\nAll tests passed in ${seconds(began)}.`);
