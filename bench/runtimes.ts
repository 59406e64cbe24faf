// `npm run bench:runtimes`: the project's own Node.js against the machine's, serving the same build
// and database side by side in alternating slots, to show what the pinned runtime buys.
// Settings: docs/benchmarks.md#runtime.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { generateKey } from "@/server/auth/api-key-format";
import { pairedRatio } from "./load";
import {
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  lpad,
  machineLine,
  median,
  pad,
  runBenchmark,
  say,
  startApp,
  stopApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_runtimes";
const ROUNDS = intSetting("BENCH_ROUNDS", 10, 1, 100);
const SLOT_MS = intSetting("BENCH_SLOT_MS", 3_000, 1_000, 60_000);
const CONNECTIONS = 10;

/** The machine's Node.js: BENCH_BASELINE_NODE, else the first `node` on PATH outside node_modules. */
function baselineNode(): string {
  if (process.env.BENCH_BASELINE_NODE) return process.env.BENCH_BASELINE_NODE;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "node");
    if (dir && !dir.split(path.sep).includes("node_modules") && existsSync(candidate)) return candidate;
  }
  throw new Error("no Node.js on PATH outside node_modules: set BENCH_BASELINE_NODE");
}

const versionOf = (node: string) => execFileSync(node, ["--version"], { encoding: "utf8" }).trim();

/** One slot of load on `url`: responses per second, and latencies (ms) of every response. */
function slot(url: string, key: string | null) {
  return new Promise<{ rps: number; latencies: number[]; non2xx: number }>((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: SLOT_MS / 1000,
        headers: key ? { "x-api-key": key } : {},
        renderProgressBar: false,
        renderResultsTable: false,
        renderLatencyTable: false,
      },
      (error, result) =>
        error
          ? reject(error)
          : resolve({ rps: result.requests.total / (SLOT_MS / 1000), latencies, non2xx: result.non2xx }),
    );
    instance.on("response", (_client, _status, _bytes, ms: number) => latencies.push(ms));
  });
}

async function main() {
  const startedAt = new Date();
  ensureBuild();
  const runtimes = [
    { label: "machine", node: baselineNode() },
    { label: "project", node: process.execPath },
  ].map((r) => ({ ...r, version: versionOf(r.node) }));
  say(`Runtimes: ${runtimes.map((r) => `${r.label} ${r.version} (${r.node})`).join(", ")}`);
  const url = await freshDatabase(DB_NAME);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const key = generateKey();
  await client.query(
    `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
     SELECT id, 'runtimes', $1, $2, '["svc:system:users:read"]'::jsonb, $3::jsonb, 'system:bench' FROM users WHERE username = 'admin'`,
    [key.hash, key.prefix, JSON.stringify({ requests: 10_000_000, window_seconds: 60 })],
  );
  await client.end();

  const apps = [];
  for (const runtime of runtimes) apps.push(await startApp(url, { SVC_AUTH_FAILURE_LIMIT: "0" }, runtime.node));
  const scenarios = [
    { label: "GET /api/health", path: "/api/health", key: null },
    { label: "GET /api/v1/me, a key", path: "/api/v1/me", key: key.raw },
  ];
  const figures = scenarios.map(() =>
    runtimes.map(() => ({ rps: [] as number[], latencies: [] as number[], non2xx: 0 })),
  );
  for (let round = -1; round < ROUNDS; round++) {
    // Round -1 warms both up and is not counted.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const [s, scenario] of scenarios.entries())
      for (const r of order) {
        const result = await slot(`${apps[r]?.baseUrl}${scenario.path}`, scenario.key);
        if (round < 0) continue;
        const into = figures[s]?.[r];
        into?.rps.push(result.rps);
        into?.latencies.push(...result.latencies);
        if (into) into.non2xx += result.non2xx;
      }
  }
  await stopApp();

  say();
  say(`svc runtime comparison — ${new Date().toISOString()}`);
  say(machineLine());
  say(
    `  one build, one database, two app processes; ${ROUNDS} rounds of ${SLOT_MS / 1000} s slots per scenario and runtime, ${CONNECTIONS} connections`,
  );
  say(
    `${pad("scenario", 26)}${runtimes.map((r) => lpad(`${r.version} req/s`, 18) + lpad("p50", 7) + lpad("p99", 8)).join("")}${lpad(`${runtimes[1]?.version}/${runtimes[0]?.version}`, 18)}`,
  );
  const rows = scenarios.map((scenario, s) => {
    const per = runtimes.map((_, r) => {
      const x = figures[s]?.[r] as { rps: number[]; latencies: number[]; non2xx: number };
      const sorted = [...x.latencies].sort((a, b) => a - b);
      return {
        rps: median(x.rps),
        p50: sorted[Math.floor(sorted.length * 0.5)] ?? NaN,
        p99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN,
        non2xx: x.non2xx,
        slots: x.rps,
      };
    });
    const paired = pairedRatio(per[0]?.slots ?? [], per[1]?.slots ?? []);
    say(
      `${pad(scenario.label, 26)}${per.map((x) => lpad(x.rps.toFixed(0), 18) + lpad(f(x.p50, 1), 7) + lpad(f(x.p99, 1), 8)).join("")}${lpad(`${paired.ratio.toFixed(2)}× [${f(paired.p10)}–${f(paired.p90)}]`, 18)}${per.some((x) => x.non2xx > 0) ? "  (non-2xx answers!)" : ""}`,
    );
    return { scenario: scenario.label, runtimes: per, ratio: paired };
  });
  say();
  say(`Results: ${await writeResults("runtimes", startedAt, { runtimes, rounds: ROUNDS, slotMs: SLOT_MS, rows })}`);
}

await runBenchmark(main, [DB_NAME]);
