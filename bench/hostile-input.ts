// `npm run bench:hostile`: what tenants' hostile settings schemas cost, in this process and against
// the production build (whether the server keeps answering while they are checked). Prints figures;
// asserts nothing. What it runs: docs/benchmarks.md#hostile-settings-schemas.

import { performance } from "node:perf_hooks";
import { EXPONENTIAL_SETTINGS, nestedArrays } from "@/test/hostile-schemas";
import {
  CHECK_BUDGET_MS,
  CheckBudget,
  schemaProblems,
  validationProblems,
} from "@/server/services/plugins/json-schema";
import { databaseUrl, ensureBuild, f, freshDatabase, intSetting, percentile, runBenchmark, say, startApp } from "./lib";

const DB_NAME = "svc_bench_hostile";
// Before anything reads the environment: the key below is made in this process, on that database.
process.env.DATABASE_URL = databaseUrl(DB_NAME);
const HEALTH_REQUESTS = intSetting("BENCH_REQUESTS", 300, 20, 100_000);

const REDOS = { type: "object", additionalProperties: { type: "string", pattern: "^(a+)+$" } };
function timed<T>(work: () => T): [T, number] {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
}

function inProcess() {
  say("In process");
  for (const length of [20, 22, 24, 26]) {
    const [, ms] = timed(() => /^(a+)+$/.test(`${"a".repeat(length)}!`));
    say(`  ^(a+)+$ on JavaScript's engine, ${length} "a" + "!": ${f(ms, 1)} ms (doubles per character)`);
  }
  for (const length of [41, 5_000, 100_000]) {
    const budget = new CheckBudget();
    const [problems, ms] = timed(() => [
      ...schemaProblems(REDOS, budget),
      ...validationProblems(REDOS, { name: `${"a".repeat(length)}!` }, "default_settings", budget),
    ]);
    say(`  the same pattern as a settings schema, ${length} "a" + "!": ${f(ms, 1)} ms (${problems.length} problem)`);
  }
  const budget = new CheckBudget();
  const [problems, ms] = timed(() => [
    ...schemaProblems(EXPONENTIAL_SETTINGS, budget),
    ...validationProblems(EXPONENTIAL_SETTINGS, { tree: nestedArrays(60) }, "default_settings", budget),
  ]);
  say(
    `  exponential anyOf over 60-deep arrays: ${f(ms, 0)} ms, "${problems[0]?.message}" (budget ${CHECK_BUDGET_MS} ms)`,
  );
  const small = {
    type: "object",
    properties: { top_k: { type: "integer", minimum: 1 }, model: { type: "string", pattern: "^[a-z0-9-]+$" } },
    required: ["top_k"],
  };
  const properties: Record<string, unknown> = {};
  for (let i = 0; JSON.stringify(properties).length < 31_000; i++)
    properties[`field_${i}`] = { type: "string", maxLength: 100, pattern: "^[a-z0-9_-]+$" };
  for (const [label, schema] of [
    ["small", small],
    [`${Object.keys(properties).length} patterned properties (~31 KiB)`, { type: "object", properties }],
  ] as const) {
    const [, compileMs] = timed(() => schemaProblems(schema, new CheckBudget()));
    say(`  compiling a ${label} schema: ${f(compileMs, 1)} ms`);
  }
}

async function healthLatencies(baseUrl: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < HEALTH_REQUESTS; i++) {
    const started = performance.now();
    await (await fetch(`${baseUrl}/api/health`)).text();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const line = (label: string, sorted: number[]) =>
  say(
    `  ${label}: p50 ${f(percentile(sorted, 50))} ms, p99 ${f(percentile(sorted, 99))} ms, max ${f(sorted[sorted.length - 1] ?? 0)} ms`,
  );

async function againstTheApp() {
  ensureBuild();
  const url = await freshDatabase(DB_NAME);
  const [{ systemActor }, { createApiKey }, { baseClient }, { readContext }] = await Promise.all([
    import("@/server/auth/actor"),
    import("@/server/services/api-keys/service"),
    import("@/server/db/client"),
    import("@/server/db/context"),
  ]);
  const admin = await baseClient().user.findFirstOrThrow({ where: { username: "admin" } });
  const key = await createApiKey(readContext(systemActor("bench")), admin.id, {
    name: "bench",
    scopes: ["svc:system:plugins:write"],
    expires_at: null,
  });
  await baseClient().$disconnect();
  const app = await startApp(url);
  say(`\nAgainst the production build (${HEALTH_REQUESTS} sequential /api/health requests each)`);
  await healthLatencies(app.baseUrl);
  line("alone", await healthLatencies(app.baseUrl));

  let stop = false;
  let registrations = 0;
  const statuses = new Map<number, number>();
  const checking: number[] = [];
  const attacker = async (settings_schema: object, default_settings: object) => {
    while (!stop) {
      const started = performance.now();
      const response = await fetch(`${app.baseUrl}/api/v1/plugins`, {
        method: "POST",
        headers: { "x-api-key": key.raw_key, "content-type": "application/json" },
        body: JSON.stringify({
          pid: `com.bench.p${registrations++}`,
          version: "1.0.0",
          name: "p",
          settings_schema,
          default_settings,
        }),
      });
      await response.text();
      checking.push(performance.now() - started);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
  };
  const attackers = [
    attacker(REDOS, { name: `${"a".repeat(5_000)}!` }),
    attacker(EXPONENTIAL_SETTINGS, { tree: nestedArrays(60) }),
  ];
  const during = await healthLatencies(app.baseUrl);
  stop = true;
  await Promise.all(attackers);
  line("while two clients register hostile schemas back to back", during);
  checking.sort((a, b) => a - b);
  say(
    `  the hostile registrations: ${checking.length}, answered ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(", ")}, p50 ${f(percentile(checking, 50))} ms, max ${f(checking[checking.length - 1] ?? 0)} ms`,
  );
}

await runBenchmark(async () => {
  inProcess();
  await againstTheApp();
}, [DB_NAME]);
