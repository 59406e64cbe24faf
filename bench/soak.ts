// `npm run bench:soak`: the app under a steady mixed load (reads, list pages, writes, 1% bad keys)
// for a minute from a separate load-generator process (soak-worker.mjs), to catch 5xx answers and
// memory that keeps growing. Targets, figures and settings: docs/benchmarks.md#soak.

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { generateKey } from "@/server/auth/api-key-format";
import {
  ADMIN_URL,
  DIST_DIR,
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  lpad,
  machine,
  pad,
  reportHeader,
  ROOT,
  runBenchmark,
  say,
  sleep,
  startApp,
  stopApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_soak";
const SECONDS = intSetting("BENCH_SOAK_SECONDS", 60, 10, 24 * 3600);
// The first seconds are JIT compilation and the heap growing to the load (throughput still climbs
// then): memory is judged from the end of the warm-up on.
const WARMUP_SECONDS = intSetting("BENCH_SOAK_WARMUP_SECONDS", 20, 1, 3600);
const CONNECTIONS = intSetting("BENCH_SOAK_CONNECTIONS", 50, 1, 1000);
const KEYS = intSetting("BENCH_SOAK_KEYS", 200, 1, 10_000);
const ORGS = intSetting("BENCH_SOAK_ORGS", 500, 1, 100_000);
const REDIS_URL = process.env.BENCH_REDIS_URL || undefined;
const MIX = { read: 0.6, list: 0.25, write: 0.15 };
const TARGET_RSS_GROWTH = 0.1;
const SAMPLE_MS = 1_000;
const WORKER = path.join(ROOT, "bench/soak-worker.mjs");

let worker: ChildProcess | undefined;

async function setupDatabase() {
  const url = await freshDatabase(DB_NAME);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const admin = (await client.query<{ id: string }>("SELECT id FROM users WHERE username = 'admin'")).rows[0]
      ?.id as string;
    const keys = Array.from({ length: KEYS }, () => generateKey());
    await client.query(
      `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
       SELECT $1, 'soak ' || h, h, p, $4::jsonb, $5::jsonb, 'system:bench' FROM unnest($2::text[], $3::text[]) AS t(h, p)`,
      [
        admin,
        keys.map((k) => k.hash),
        keys.map((k) => k.prefix),
        JSON.stringify(["svc:system:orgs:read", "svc:system:orgs:write", "svc:org:read"]),
        JSON.stringify({ requests: 10_000_000, window_seconds: 60 }),
      ],
    );
    const orgs = await client.query<{ id: string }>(
      "INSERT INTO organizations (name, created_by, updated_by) SELECT 'soak-seed-' || n, 'system:bench', 'system:bench' FROM generate_series(1, $1) AS n RETURNING id",
      [ORGS],
    );
    await client.query("VACUUM ANALYZE");
    const badKeys = Array.from({ length: 20 }, () => generateKey().raw); // well-formed, never stored
    return { url, keys: keys.map((k) => k.raw), badKeys, orgIds: orgs.rows.map((r) => r.id) };
  } finally {
    await client.end();
  }
}

/** Resident memory of a process (bytes), from /proc; undefined off Linux. */
function rssOf(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

function runWorker(job: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER], { stdio: ["pipe", "pipe", "pipe"] });
    worker = child;
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8_000)));
    child.once("exit", (code) => {
      worker = undefined;
      try {
        const parsed = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Record<string, unknown>;
        if (code === 0 && !("error" in parsed)) return resolve(parsed);
        reject(new Error(`soak worker failed (exit ${code}): ${String(parsed.error)}\n${stderr}`));
      } catch {
        reject(new Error(`soak worker failed (exit ${code}): ${stdout}\n${stderr}`));
      }
    });
    child.stdin.end(JSON.stringify(job));
  });
}

const mb = (bytes: number | undefined) => (bytes === undefined ? "n/a" : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

async function main() {
  const startedAt = new Date();
  const buildId = ensureBuild();
  say(`Creating ${DB_NAME} on ${new URL(ADMIN_URL).host} with ${KEYS} keys and ${ORGS} organizations…`);
  const { url, keys, badKeys, orgIds } = await setupDatabase();
  const app = await startApp(
    url,
    REDIS_URL ? { REDIS_URL, REDIS_KEY_PREFIX: `svc-soak-${process.pid}:` } : { REDIS_URL: "" },
  );
  say(
    `App started from the production build (${DIST_DIR}, ${buildId}), pid ${app.pid}; ${SECONDS} s at ${CONNECTIONS} connections, warm-up ${WARMUP_SECONDS} s…`,
  );

  const rss: { at: number; bytes: number | undefined }[] = [{ at: 0, bytes: rssOf(app.pid) }];
  const runStart = performance.now();
  const sampler = setInterval(
    () => rss.push({ at: (performance.now() - runStart) / 1000, bytes: rssOf(app.pid) }),
    SAMPLE_MS,
  );
  let result: Record<string, unknown>;
  try {
    result = await runWorker({
      url: app.baseUrl,
      connections: CONNECTIONS,
      duration: SECONDS,
      keys,
      badKeys,
      orgIds,
      mix: MIX,
    });
  } finally {
    clearInterval(sampler);
  }
  rss.push({ at: (performance.now() - runStart) / 1000, bytes: rssOf(app.pid) });
  const metrics = await (await fetch(`${app.baseUrl}/api/metrics`)).text();
  const appLog = app.output();
  await stopApp();

  const statuses = result.statuses as Record<string, number>;
  const perSecond = (result.perSecond as ({ responses: number; errors5xx: number } | null)[]).map(
    (s) => s ?? { responses: 0, errors5xx: 0 },
  );
  const errors5xx = Object.entries(statuses)
    .filter(([status]) => Number(status) >= 500)
    .reduce((n, [, count]) => n + count, 0);
  const atStart = rss[0]?.bytes;
  const afterWarmup = rss.find((sample) => sample.at >= WARMUP_SECONDS)?.bytes;
  const atEnd = rss[rss.length - 1]?.bytes;
  const peak = Math.max(...rss.map((sample) => sample.bytes ?? 0));
  const growth = afterWarmup && atEnd ? atEnd / afterWarmup - 1 : null;
  // A counter that never moved is not in the text at all: 0.
  const metric = (name: string) =>
    new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, "m").exec(metrics)?.[1] ?? "0";

  reportHeader("soak");
  say(
    `  app: production build ${buildId}, one app server process, LOG_LEVEL=warn, rate limits ${REDIS_URL ? `shared through Redis (${new URL(REDIS_URL).host})` : "in process"}`,
  );
  say(
    `  load: autocannon in a separate process on 127.0.0.1, ${CONNECTIONS} connections, ${SECONDS} s; mix: ${MIX.read * 100}% reads of one organization, ${MIX.list * 100}% list pages, ${MIX.write * 100}% writes (new organizations), every 100th request a bad key`,
  );
  say();
  say(
    `requests: ${(result.responses as number).toLocaleString("en")} in ${f(result.seconds as number, 1)} s = ${f(result.rps as number, 0)} req/s; p50 ${f(result.p50 as number)} ms, p99 ${f(result.p99 as number)} ms, max ${f(result.max as number)} ms`,
  );
  say(`sent by kind: ${JSON.stringify(result.kinds)}`);
  say(
    `answers by status: ${Object.entries(statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(", ")}; connection errors ${String(result.errors)}, timeouts ${String(result.timeouts)}`,
  );
  say(
    `5xx: ${errors5xx} (target 0) → ${errors5xx === 0 && result.errors === 0 && result.timeouts === 0 ? "PASS" : "FAIL"}`,
  );
  say(
    `app RSS: at start ${mb(atStart)}, after the ${WARMUP_SECONDS} s warm-up ${mb(afterWarmup)}, peak ${mb(peak)}, at the end ${mb(atEnd)}; growth after warm-up ${growth === null ? "n/a" : `${(growth * 100).toFixed(1)}%`} (target ≤ ${TARGET_RSS_GROWTH * 100}%) → ${growth !== null && growth <= TARGET_RSS_GROWTH ? "PASS" : "FAIL"}`,
  );
  say(
    `app metrics at the end: JS heap used ${mb(Number(metric("svc_nodejs_heap_size_used_bytes")))} of ${mb(Number(metric("svc_nodejs_heap_size_total_bytes")))}; pool in use ${metric('svc_db_pool_connections{state="in_use"}')}, waiting ${metric('svc_db_pool_connections{state="waiting"}')}; bookkeeping backlog ${metric("svc_bookkeeping_backlog")}; 429s ${metric('svc_rate_limited_total{limit="auth_failures"}')} (bad keys past the per-address limit)`,
  );
  say();
  const window = Math.max(1, Math.round(SECONDS / 12));
  say(`${pad("seconds", 12)}${lpad("req/s", 9)}${lpad("5xx", 6)}${lpad("RSS", 12)}`);
  for (let from = 0; from < perSecond.length; from += window) {
    const slice = perSecond.slice(from, from + window);
    const sample = rss.find((s) => s.at >= from + slice.length) ?? rss[rss.length - 1];
    say(
      `${pad(`${from}–${from + slice.length}`, 12)}${lpad((slice.reduce((n, s) => n + s.responses, 0) / slice.length).toFixed(0), 9)}${lpad(String(slice.reduce((n, s) => n + s.errors5xx, 0)), 6)}${lpad(mb(sample?.bytes), 12)}`,
    );
  }
  const warnings = appLog.split("\n").filter((l) => l.startsWith("{"));
  if (warnings.length)
    say(`The app logged ${warnings.length} line(s) at warn or above; the last ones:\n${warnings.slice(-5).join("\n")}`);

  const file = await writeResults("soak", startedAt, {
    startedAt: startedAt.toISOString(),
    machine: machine(),
    settings: {
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      keys: KEYS,
      orgs: ORGS,
      mix: MIX,
      redis: Boolean(REDIS_URL),
    },
    buildId,
    result,
    rss,
    errors5xx,
    rssGrowthAfterWarmup: growth,
  });
  say(`Results: ${file}`);
}

async function cleanup(): Promise<void> {
  if (worker?.pid !== undefined && worker.exitCode === null) process.kill(worker.pid, "SIGKILL");
  await sleep(100);
}

await runBenchmark(main, [DB_NAME], cleanup);
