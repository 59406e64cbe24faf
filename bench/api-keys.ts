// `npm run bench`: the API-key stage under load, on the production build and a real PostgreSQL
// holding 100,000 keys. Scenarios, driven from a separate load-generator process (autocannon):
//   (a)  GET /api/health, no credentials (no database work)
//   (b)  GET /api/v1/me with valid keys, rotating among BENCH_USED_KEYS of them
//   (c)  GET /api/v1/me with well-formed keys (valid checksum) that are not in the database
//   (c') GET /api/v1/me with bad-checksum keys (refused before any lookup)
// taking turns on the same connections at each connection level, in short slots (a, b, c, c', then
// c', c, b, a, ...), because absolute figures drift on a shared machine and ratios of neighbouring
// slots do not. Prints req/s, p50 and p99 per scenario, the ratios b/a against the targets, and the
// last_used_at writes made.
//
// The keys under test carry restrictions (an `allowed_cidrs` list of BENCH_CIDRS networks, the
// one that lets the bench in last, and `allowed_org_ids`), and usage counting is on (it always
// is): the figures include both. The usage written is checked against the responses counted.
//
// The whole run happens twice, rate limits on both times: counted in the app process, then shared
// through Redis (BENCH_REDIS_URL, default the local Redis; empty: skipped).
//
// Settings (environment): BENCH_DATABASE_URL (server on which the database svc_bench is created
// and dropped), BENCH_REDIS_URL, BENCH_KEYS, BENCH_USED_KEYS, BENCH_CONNECTIONS ("10,50"),
// BENCH_ROUNDS, BENCH_SLOT_MS, BENCH_SETTLE_MS, BENCH_WARMUP_ROUNDS, BENCH_KEEP_DB=1 (keep svc_bench
// afterwards).

import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { generateKey } from "@/server/auth/api-key-format";
import {
  ADMIN_URL,
  appLogLines,
  CLK_TCK,
  DIST_DIR,
  dropDatabase,
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  lpad,
  machine,
  machineLine,
  median,
  pad,
  percentile,
  processTree,
  ROOT,
  runBenchmark,
  say,
  sleep,
  startApp,
  stopApp,
  writeResults,
} from "./lib";

// ---------------------------------------------------------------------------------------------
// Settings

const DB_NAME = "svc_bench";
const KEYS = intSetting("BENCH_KEYS", 100_000, 1_000, 1_000_000);
const USED_KEYS = intSetting("BENCH_USED_KEYS", 200, 1, 5_000);
// The scenarios take turns on the same connections in slots of SLOT_MS, one slot each per round:
// the machine's speed drifts within seconds (the same work has cost a third more CPU from one
// second to the next), so a pair of neighbouring slots sees the same machine, and many short pairs
// judge the ratio more closely than a few long ones. The first SETTLE_MS of a slot are not measured:
// the connections are still answering the previous scenario's requests then.
const ROUNDS = intSetting("BENCH_ROUNDS", 120, 1, 1_000);
const SLOT_MS = intSetting("BENCH_SLOT_MS", 400, 100, 10_000);
const SETTLE_MS = intSetting("BENCH_SETTLE_MS", 100, 0, SLOT_MS - 50);
const WARMUP_ROUNDS = intSetting("BENCH_WARMUP_ROUNDS", 8, 0, 100);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS || "10,50").split(",").map((s) => {
  const n = Number(s.trim());
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new Error("BENCH_CONNECTIONS: comma-separated integers in [1, 1000]");
  return n;
});
if (CONNECTIONS.length > 5) throw new Error("BENCH_CONNECTIONS: at most 5 levels");
const OWNERS = 5; // the seeded sys_admin and four plain users share the keys round-robin
const CIDRS = intSetting("BENCH_CIDRS", 50, 1, 100);
// Networks the bench does not come from, then loopback (IPv4, then IPv6) last: every request checks them all.
const ALLOWED_CIDRS = [
  ...Array.from({ length: Math.max(0, CIDRS - 2) }, (_, i) =>
    i % 2 === 0 ? `10.${i}.0.0/16` : `2001:db8:${i.toString(16)}::/48`,
  ),
  "127.0.0.0/8",
  "::1/128",
].slice(-CIDRS);
const INSERT_BATCH = 5_000;
const LAST_USED_INTERVAL_S = 60; // api-key-stage.ts: at most one write per key per 60 s
const FLUSH_INTERVAL_S = 5; // api-key-stage.ts: pending writes flushed every 5 s
const TARGET_RPS_RATIO = 0.9;
const TARGET_RPS_RATIO_REDIS = 0.85;
const TARGET_P99_RATIO = 1.2;
// The second phase shares the rate limits through this Redis; empty: no second phase.
const REDIS_URL =
  process.env.BENCH_REDIS_URL === undefined ? "redis://127.0.0.1:6379" : process.env.BENCH_REDIS_URL || undefined;
// The bench measures the key path, not 429s: its keys allow far more than it sends, and failed
// authentications are not limited (the bad-key scenarios would otherwise be 429s after a minute).
const BENCH_RATE_LIMIT = { requests: 10_000_000, window_seconds: 60 };
const BENCH_APP_ENV = { SVC_AUTH_FAILURE_LIMIT: "0" };

const WORKER = path.join(ROOT, "bench/load-worker.mjs");

// ---------------------------------------------------------------------------------------------
// Database: fresh svc_bench, migrated, seeded, KEYS keys

interface Keys {
  valid: string[];
  unknown: string[];
  badChecksum: string[];
}

async function setupDatabase(): Promise<{ url: string; keys: Keys; serverVersion: string }> {
  const url = await freshDatabase(DB_NAME);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const serverVersion =
      (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "?";
    const admin = await client.query<{ id: string }>("SELECT id FROM users WHERE username = 'admin'");
    const owners = [admin.rows[0]?.id as string];
    for (let i = 1; i < OWNERS; i++) {
      const row = await client.query<{ id: string }>(
        "INSERT INTO users (username, display_name, created_by, updated_by) VALUES ($1, $2, 'system:bench', 'system:bench') RETURNING id",
        [`bench_owner_${i}`, `Bench owner ${i}`],
      );
      owners.push(row.rows[0]?.id as string);
    }

    // Every owner belongs to two organizations; the keys under test may act in the first only.
    const orgs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const row = await client.query<{ id: string }>(
        "INSERT INTO organizations (name, created_by, updated_by) VALUES ($1, 'system:bench', 'system:bench') RETURNING id",
        [`bench_org_${i}`],
      );
      orgs.push(row.rows[0]?.id as string);
    }
    for (const owner of owners)
      for (const org of orgs)
        await client.query("INSERT INTO user_org_memberships (user_id, org_id) VALUES ($1, $2)", [owner, org]);

    const started = performance.now();
    const valid: string[] = [];
    const validHashes: string[] = [];
    const scopes = JSON.stringify(["svc:system:users:read", "svc:org:read", "svc:orchestrators:read"]);
    for (let from = 0; from < KEYS; from += INSERT_BATCH) {
      const count = Math.min(INSERT_BATCH, KEYS - from);
      const userIds: string[] = [];
      const names: string[] = [];
      const hashes: string[] = [];
      const prefixes: string[] = [];
      for (let i = from; i < from + count; i++) {
        const key = generateKey();
        if (valid.length < USED_KEYS) {
          valid.push(key.raw);
          validHashes.push(key.hash);
        }
        userIds.push(owners[i % owners.length] as string);
        names.push(`bench key ${i}`);
        hashes.push(key.hash);
        prefixes.push(key.prefix);
      }
      await client.query(
        `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
         SELECT u, n, h, p, $5::jsonb, $6::jsonb, 'system:bench'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS t(u, n, h, p)`,
        [userIds, names, hashes, prefixes, scopes, JSON.stringify(BENCH_RATE_LIMIT)],
      );
    }
    await client.query(
      "UPDATE api_keys SET allowed_cidrs = $1::varchar[], allowed_org_ids = $2::uuid[] WHERE key_hash = ANY($3::text[])",
      [ALLOWED_CIDRS, [orgs[0]], validHashes],
    );
    await client.query("VACUUM ANALYZE api_keys");
    const inserted = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM api_keys")).rows[0]?.n);
    if (inserted !== KEYS) throw new Error(`expected ${KEYS} keys, found ${inserted}`);
    say(
      `Inserted ${KEYS.toLocaleString("en")} API keys for ${OWNERS} owners in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );

    // Bench-only instrumentation: one row per UPDATE statement on api_keys with the rows it
    // changed. Exact and without the statistics collector's lag; cross-checks n_tup_upd.
    await client.query(`
      CREATE TABLE bench_api_key_updates (at timestamptz NOT NULL DEFAULT clock_timestamp(), rows integer NOT NULL);
      CREATE FUNCTION bench_count_api_key_updates() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO bench_api_key_updates (rows) SELECT count(*) FROM changed;
        RETURN NULL;
      END $$;
      CREATE TRIGGER bench_count_api_key_updates AFTER UPDATE ON api_keys
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bench_count_api_key_updates();
    `);

    const unknown = Array.from({ length: USED_KEYS }, () => generateKey().raw); // never inserted
    const badChecksum = valid.map((raw) => raw.slice(0, -1) + (raw.endsWith("0") ? "1" : "0"));
    return { url, keys: { valid, unknown, badChecksum }, serverVersion };
  } finally {
    await client.end();
  }
}

async function apiKeyUpdateStats(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_stat_clear_snapshot()");
    const stat = await client.query<{ n: string }>(
      "SELECT n_tup_upd AS n FROM pg_stat_user_tables WHERE relname = 'api_keys'",
    );
    const trig = await client.query<{ statements: string; nonempty: string; rows: string }>(
      "SELECT count(*) AS statements, count(*) FILTER (WHERE rows > 0) AS nonempty, coalesce(sum(rows), 0) AS rows FROM bench_api_key_updates",
    );
    const touched = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM api_keys WHERE last_used_at IS NOT NULL",
    );
    const usage = await client.query<{ n: string; rows: string }>(
      "SELECT coalesce(sum(count), 0) AS n, count(*) AS rows FROM api_key_usage",
    );
    const db = await client.query<{ n: string }>(
      "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()",
    );
    return {
      transactions: Number(db.rows[0]?.n ?? 0),
      nTupUpd: Number(stat.rows[0]?.n ?? 0),
      updateStatements: Number(trig.rows[0]?.statements ?? 0),
      nonEmptyUpdateStatements: Number(trig.rows[0]?.nonempty ?? 0),
      rowsUpdated: Number(trig.rows[0]?.rows ?? 0),
      keysWithLastUsed: Number(touched.rows[0]?.n ?? 0),
      usageCounted: Number(usage.rows[0]?.n ?? 0),
      usageRows: Number(usage.rows[0]?.rows ?? 0),
    };
  } finally {
    await client.end();
  }
}

const workers = new Set<ChildProcess>();

// ---------------------------------------------------------------------------------------------
// Load: each connection level one load-generator process, the scenarios taking turns in slots

interface Scenario {
  id: "a" | "b" | "c" | "c'";
  label: string;
  path: string;
  keys: string[] | null;
  expectStatus: number;
}

/** What the load generator saw of one scenario (bench/load-worker.mjs). */
interface ScenarioLoad {
  responses: number;
  statuses: Record<string, number>;
  /** Responses per 0.1 ms of latency, each connection's first left out. */
  histogram: Record<string, number>;
  firstResponses: number;
  /** How many distinct keys of the scenario were sent (handed out round-robin). */
  keysSent: number;
  /** One per round: the responses completed in the slot's window, and the app's CPU (ms) over it. */
  slots: { responses: number; cpuMs: number | null }[];
}

interface LevelLoad {
  connections: number;
  rounds: number;
  seconds: number;
  /** Length of each slot's measured window, in ms. */
  windowMs: number;
  scenarios: Record<Scenario["id"], ScenarioLoad>;
  errors: number;
  timeouts: number;
  loadGeneratorCpuMs: number;
  /** The app's garbage collections during the run (from its metrics), null if unreadable. */
  gc: GcCounts | null;
}

/** A percentile of the responses of a 0.1 ms histogram. */
function histogramPercentile(histogram: Record<string, number>, p: number): number {
  const buckets = Object.entries(histogram)
    .map(([bucket, n]) => [Number(bucket), n] as const)
    .sort((x, y) => x[0] - y[0]);
  const total = buckets.reduce((sum, [, n]) => sum + n, 0);
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const [bucket, n] of buckets) {
    seen += n;
    if (seen >= rank) return bucket / 10;
  }
  return NaN;
}

function runWorker(job: unknown, timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER], { stdio: ["pipe", "pipe", "pipe"] });
    workers.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8_000)));
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGKILL");
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      workers.delete(child);
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (code === 0 && !("error" in parsed)) return resolve(parsed);
        reject(new Error(`load worker failed (exit ${code}): ${String(parsed.error ?? line)}\n${stderr}`));
      } catch {
        reject(new Error(`load worker failed (exit ${code}): ${stdout}\n${stderr}`));
      }
    });
    child.stdin.end(JSON.stringify(job));
  });
}

interface GcCounts {
  /** Full (mark-compact) collections. */
  major: number;
  /** Main-thread pause of every kind of collection, in ms. */
  pauseMs: number;
}

// A full collection makes every answer in flight late: the report says how many a level caught, and
// the pauses of all collections. Read from the app's own metrics (prom-client's GC histogram),
// before and after the level's load.
async function gcCounts(baseUrl: string): Promise<GcCounts | null> {
  try {
    const response = await fetch(`${baseUrl}/api/metrics`);
    if (!response.ok) return null;
    const text = await response.text();
    // A kind of collection appears once the app has had one.
    const major = /^svc_nodejs_gc_duration_seconds_count\{kind="major"\} (\S+)$/m.exec(text);
    const sums = [...text.matchAll(/^svc_nodejs_gc_duration_seconds_sum\{kind="[a-z]+"\} (\S+)$/gm)];
    return { major: major ? Number(major[1]) : 0, pauseMs: sums.reduce((ms, m) => ms + Number(m[1]) * 1000, 0) };
  } catch {
    return null;
  }
}

/** The scenarios in turns at one connection level, `rounds` rounds of one slot each. */
async function runLevel(
  baseUrl: string,
  appPids: number[],
  scenarios: Scenario[],
  connections: number,
  rounds: number,
): Promise<LevelLoad> {
  const gcBefore = await gcCounts(baseUrl);
  const job = {
    url: baseUrl,
    connections,
    rounds,
    slotMs: SLOT_MS,
    settleMs: SETTLE_MS,
    scenarios: scenarios.map(({ id, path, keys }) => ({ id, path, keys })),
    appPids,
    clockTicks: CLK_TCK,
  };
  const r = await runWorker(job, (rounds * scenarios.length + 1) * SLOT_MS + 60_000);
  const gcAfter = await gcCounts(baseUrl);
  return {
    connections,
    rounds,
    seconds: r.seconds as number,
    windowMs: r.windowMs as number,
    scenarios: r.scenarios as LevelLoad["scenarios"],
    errors: r.errors as number,
    timeouts: r.timeouts as number,
    loadGeneratorCpuMs: r.cpuMs as number,
    gc:
      gcBefore && gcAfter
        ? { major: gcAfter.major - gcBefore.major, pauseMs: gcAfter.pauseMs - gcBefore.pauseMs }
        : null,
  };
}

/** A scenario's figures at one level. */
function scenarioFigures(level: LevelLoad, scenario: Scenario) {
  const load = level.scenarios[scenario.id];
  const slotRps = load.slots.map((slot) => (slot.responses * 1000) / level.windowMs);
  const cpu = load.slots
    .filter((slot) => slot.cpuMs !== null && slot.responses > 0)
    .map((slot) => ((slot.cpuMs as number) * 1000) / slot.responses);
  return {
    label: scenario.label,
    rps: median(slotRps),
    slotRps,
    p50: histogramPercentile(load.histogram, 50),
    p99: histogramPercentile(load.histogram, 99),
    appCpuUsPerRequest: cpu.length ? median(cpu) : null,
    expectedShare: load.responses > 0 ? (load.statuses[String(scenario.expectStatus)] ?? 0) / load.responses : 0,
    responses: load.responses,
  };
}

interface Phase {
  label: string;
  /** The app's environment for the phase, besides the bench's own. */
  env: Record<string, string>;
  /** Throughput b/a target of the phase. */
  rpsTarget: number;
}

/** One phase: the app started with the phase's environment, warmed up, measured in rounds, stopped. */
async function measure(phase: Phase, url: string, keys: Keys) {
  const before = await apiKeyUpdateStats(url);
  const runStart = performance.now(); // keys are used from here on (sanity checks, warm-up, rounds)
  const started = await startApp(url, { ...BENCH_APP_ENV, ...phase.env });
  say(`[${phase.label}] App started, pid ${started.pid}, ${started.baseUrl}.`);

  // Sanity: each scenario answers what it should before anything is measured.
  const check = async (key: string | null, p: string) =>
    (await fetch(`${started.baseUrl}${p}`, { headers: key === null ? {} : { "x-api-key": key } })).status;
  const sanity = {
    a: await check(null, "/api/health"),
    b: await check(keys.valid[0] as string, "/api/v1/me"),
    c: await check(keys.unknown[0] as string, "/api/v1/me"),
    "c'": await check(keys.badChecksum[0] as string, "/api/v1/me"),
  };
  if (sanity.a !== 200 || sanity.b !== 200 || sanity.c !== 401 || sanity["c'"] !== 401) {
    throw new Error(`unexpected statuses before the run: ${JSON.stringify(sanity)}\n${started.output()}`);
  }
  const restricted = (await (
    await fetch(`${started.baseUrl}/api/v1/me`, { headers: { "x-api-key": keys.valid[0] as string } })
  ).json()) as { key: { allowed_cidrs: string[] | null; allowed_org_ids: string[] | null } };
  if (restricted.key.allowed_cidrs?.length !== CIDRS || restricted.key.allowed_org_ids?.length !== 1) {
    throw new Error(`the keys under test are not restricted as they should be: ${JSON.stringify(restricted.key)}`);
  }
  if (phase.env.REDIS_URL) await untilRateLimitsShared(started.baseUrl);

  const scenarios: Scenario[] = [
    { id: "a", label: "GET /api/health (no key)", path: "/api/health", keys: null, expectStatus: 200 },
    {
      id: "b",
      label: `GET /api/v1/me, ${keys.valid.length} valid keys`,
      path: "/api/v1/me",
      keys: keys.valid,
      expectStatus: 200,
    },
    {
      id: "c",
      label: `GET /api/v1/me, ${keys.unknown.length} unknown keys`,
      path: "/api/v1/me",
      keys: keys.unknown,
      expectStatus: 401,
    },
    {
      id: "c'",
      label: `GET /api/v1/me, bad-checksum key`,
      path: "/api/v1/me",
      keys: keys.badChecksum,
      expectStatus: 401,
    },
  ];
  const appPids = processTree(started.pid);

  const warmups: LevelLoad[] = [];
  const loads: LevelLoad[] = [];
  for (const connections of CONNECTIONS) {
    // Each level warms up on its own: the first seconds at a higher concurrency grow the app's heap
    // (a pause of up to a second here), which would otherwise land on whichever scenario comes first.
    if (WARMUP_ROUNDS > 0) {
      say(`[${phase.label}] Warming up: ${WARMUP_ROUNDS} rounds at ${connections} connections…`);
      warmups.push(await runLevel(started.baseUrl, appPids, scenarios, connections, WARMUP_ROUNDS));
    }
    say(
      `[${phase.label}] Measuring at ${connections} connections: ${ROUNDS} rounds of ${SLOT_MS} ms slots, alternating ${scenarios.map((s) => s.id).join(",")}…`,
    );
    loads.push(await runLevel(started.baseUrl, appPids, scenarios, connections, ROUNDS));
  }
  const runSeconds = (performance.now() - runStart) / 1000;

  // The app flushes pending last_used_at writes within FLUSH_INTERVAL_S of the last use; the
  // statistics collector publishes a backend's counts about a second after it goes idle. Wait, then
  // read until two reads a second apart agree (bounded).
  say(`[${phase.label}] Waiting for the final last_used_at flush (${FLUSH_INTERVAL_S} s) and the statistics…`);
  await sleep((FLUSH_INTERVAL_S + 1) * 1000);
  let after = await apiKeyUpdateStats(url);
  for (let i = 0; i < 15; i++) {
    await sleep(1000);
    const again = await apiKeyUpdateStats(url);
    const stable = again.nTupUpd === after.nTupUpd && again.rowsUpdated === after.rowsUpdated;
    after = again;
    if (stable && after.nTupUpd - before.nTupUpd === after.rowsUpdated - before.rowsUpdated) break;
  }
  const appLog = started.output();
  await stopApp();

  // ---- figures
  const levels = loads.map((load) => {
    const per = Object.fromEntries(scenarios.map((s) => [s.id, scenarioFigures(load, s)])) as Record<
      Scenario["id"],
      ReturnType<typeof scenarioFigures>
    >;
    // Judged on the median of the paired ratios: each pair ran a fraction of a second apart, so a
    // drift of the machine between rounds cancels out of it, which it does not out of a ratio of medians.
    const pairs = per.a.slotRps.map((a, i) => (per.b.slotRps[i] ?? NaN) / a);
    const sortedPairs = [...pairs].sort((x, y) => x - y);
    const rpsRatio = median(pairs);
    // One slot holds a few hundred responses, too few for a p99 of its own: the p99 of all of a
    // scenario's responses (a and b interleaved in time) is the figure.
    const p99Ratio = per.b.p99 / per.a.p99;
    const cpuRatio =
      per.b.appCpuUsPerRequest !== null && per.a.appCpuUsPerRequest !== null
        ? per.b.appCpuUsPerRequest / per.a.appCpuUsPerRequest
        : null;
    const valid = scenarios.every((s) => per[s.id].expectedShare >= 0.999) && load.errors + load.timeouts === 0;
    return {
      connections: load.connections,
      scenarios: per,
      rpsRatio,
      p99Ratio,
      cpuRatio,
      rpsPass: rpsRatio >= phase.rpsTarget,
      p99Pass: p99Ratio <= TARGET_P99_RATIO,
      pairs: { p10: percentile(sortedPairs, 10), p90: percentile(sortedPairs, 90) },
      ratioOfTotals: per.b.slotRps.reduce((n, x) => n + x, 0) / per.a.slotRps.reduce((n, x) => n + x, 0),
      gc: load.gc,
      loadGeneratorUsPerResponse:
        (load.loadGeneratorCpuMs * 1000) / Object.values(load.scenarios).reduce((n, s) => n + s.responses, 0),
      valid,
    };
  });

  // Valid keys sent: the sanity check's first key, then the first N of the list in each run.
  const keysUsed = Math.max(1, ...[...warmups, ...loads].map((load) => load.scenarios.b.keysSent));
  // Plus, once per key, its last address and user agent (unchanged afterwards: not written again).
  const bound = keysUsed * (runSeconds / LAST_USED_INTERVAL_S) + 2 * keysUsed;
  const writes = after.nTupUpd - before.nTupUpd;
  const writesCrossCheck = after.rowsUpdated - before.rowsUpdated;
  const writesPass = writes <= bound && writesCrossCheck <= bound;
  // Usage: every response to a valid key counted once (the two sanity requests included); a run
  // may end with requests answered that its load generator no longer counted.
  const validResponses = [...warmups, ...loads].reduce((n, load) => n + load.scenarios.b.responses, 0) + 2;
  const usage = { counted: after.usageCounted - before.usageCounted, responses: validResponses, rows: after.usageRows };
  return {
    phase,
    scenarios,
    levels,
    lastUsed: { keysUsed, runSeconds, bound, writes, writesCrossCheck, before, after, pass: writesPass },
    usage,
    warmups,
    loads,
    appLog,
  };
}

/** Waits until the app counts in Redis (its metrics say so), so the measured rounds pay for Redis. */
async function untilRateLimitsShared(baseUrl: string) {
  for (let i = 0; i < 100; i++) {
    if (/^svc_rate_limit_shared 1$/m.test(await (await fetch(`${baseUrl}/api/metrics`)).text())) return;
    await sleep(100);
  }
  throw new Error("the app did not reach Redis at REDIS_URL");
}

type Measured = Awaited<ReturnType<typeof measure>>;

function gcText(gc: GcCounts | null): string {
  return gc ? `${gc.major} (pauses of all collections ${gc.pauseMs.toFixed(0)} ms)` : "unknown";
}

function report({ phase, scenarios, levels, lastUsed, usage, appLog }: Measured) {
  say();
  say(`== ${phase.label} ==`);
  const header = `${pad("conns", 6)}${pad("scenario", 40)}${lpad("req/s", 9)}${lpad("p50 ms", 9)}${lpad("p99 ms", 9)}${lpad("app CPU", 9)}  status`;
  say(header);
  say("-".repeat(header.length + 6));
  for (const level of levels) {
    for (const s of scenarios) {
      const x = level.scenarios[s.id];
      const status = `${s.expectStatus} ${(x.expectedShare * 100).toFixed(1)}%`;
      say(
        `${pad(String(level.connections), 6)}${pad(`(${s.id}) ${x.label}`, 40)}${lpad(x.rps.toFixed(0), 9)}${lpad(f(x.p50), 9)}${lpad(f(x.p99), 9)}${lpad(f(x.appCpuUsPerRequest, 0), 9)}  ${status}`,
      );
    }
  }
  say();
  say(
    `Ratios (b) valid key / (a) health: throughput as the median of the per-round paired ratios (in brackets their 10th and 90th percentiles, then the ratio of the totals), p99 as the ratio of the pooled p99s; the app CPU ratio is for information:`,
  );
  for (const level of levels) {
    say(
      `  ${lpad(String(level.connections), 3)} conns: throughput b/a = ${level.rpsRatio.toFixed(3)} (target ≥ ${phase.rpsTarget}) ${level.rpsPass ? "PASS" : "FAIL"} [${f(level.pairs.p10)} to ${f(level.pairs.p90)}; ${level.ratioOfTotals.toFixed(3)}];` +
        `  p99 b/a = ${level.p99Ratio.toFixed(3)} (target ≤ ${TARGET_P99_RATIO}) ${level.p99Pass ? "PASS" : "FAIL"};` +
        `  app CPU per request b/a = ${f(level.cpuRatio)};  full collections ${gcText(level.gc)};  load generator ${level.loadGeneratorUsPerResponse.toFixed(0)} µs CPU a response${level.valid ? "" : "  (INVALID: unexpected statuses or errors)"}`,
    );
  }
  const { keysUsed, runSeconds, bound, writes, writesCrossCheck, before, after, pass } = lastUsed;
  say(
    `api_keys writes (last_used_at, last address): keys used ${keysUsed}, run ${runSeconds.toFixed(1)} s, bound ${keysUsed} × ${runSeconds.toFixed(1)}/${LAST_USED_INTERVAL_S} + 2 × ${keysUsed} = ${bound.toFixed(0)}; ` +
      `measured ${writes} (pg_stat n_tup_upd) / ${writesCrossCheck} (rows counted by a bench trigger, in ${after.nonEmptyUpdateStatements - before.nonEmptyUpdateStatements} UPDATE statements of ${after.updateStatements - before.updateStatements}); ` +
      `keys with last_used_at set ${after.keysWithLastUsed} → ${pass ? "PASS" : "FAIL"}`,
  );
  say(
    `usage counted: ${usage.counted} requests of valid keys in ${usage.rows} hourly buckets, for ${usage.responses} responses the load generators saw (${((usage.counted / usage.responses) * 100).toFixed(2)}%)`,
  );
  say(
    `database transactions in ${DB_NAME} during the phase (pg_stat_database, includes the bench's own few reads): ${after.transactions - before.transactions}`,
  );
  const logLines = appLogLines(appLog);
  if (logLines.length)
    say(`The app logged ${logLines.length} line(s) at warn or above; the last ones:\n${logLines.slice(-5).join("\n")}`);
}

async function main() {
  const startedAt = new Date();
  const buildId = ensureBuild();
  say(
    `Creating ${DB_NAME} on ${new URL(ADMIN_URL).host}, migrating, seeding, inserting ${KEYS.toLocaleString("en")} keys…`,
  );
  const { url, keys, serverVersion } = await setupDatabase();

  // The limiter is on in both phases: in the app process, then shared through Redis.
  const phases: Phase[] = [{ label: "rate limits in process", env: { REDIS_URL: "" }, rpsTarget: TARGET_RPS_RATIO }];
  if (REDIS_URL) {
    phases.push({
      label: `rate limits in Redis (${new URL(REDIS_URL).host})`,
      env: { REDIS_URL, REDIS_KEY_PREFIX: `svc-bench-${process.pid}:` },
      rpsTarget: TARGET_RPS_RATIO_REDIS,
    });
  }
  const measured: Measured[] = [];
  for (const phase of phases) measured.push(await measure(phase, url, keys));

  say();
  say(`svc API-key benchmark — ${new Date().toISOString()}`);
  say(machineLine());
  say(
    `  app: production build ${buildId} (${DIST_DIR}), one app server process, LOG_LEVEL=warn (request log lines off), DATABASE_POOL_MAX=${process.env.DATABASE_POOL_MAX || "10 (default)"}; bench keys have rate_limit ${BENCH_RATE_LIMIT.requests}/${BENCH_RATE_LIMIT.window_seconds} s, SVC_AUTH_FAILURE_LIMIT=0 (the bad-key scenarios measure the key path, not 429s)`,
  );
  say(
    `  keys under test: allowed_cidrs of ${CIDRS} networks (loopback last, so each request checks them all), allowed_org_ids of one organization; usage counted per request`,
  );
  say(
    `  database: PostgreSQL ${serverVersion}, ${DB_NAME} with ${KEYS.toLocaleString("en")} API keys (${OWNERS} owners)`,
  );
  say(
    `  load: autocannon in a separate process on 127.0.0.1, keep-alive, the scenarios taking turns on the same connections: ${ROUNDS} rounds of one ${SLOT_MS} ms slot each (the first ${SETTLE_MS} ms of a slot not measured), every other round in reverse order; warm-up ${WARMUP_ROUNDS} rounds at each level`,
  );
  say(
    `  figures: req/s is the median over the rounds of the responses completed in a slot's measured window; p50 and p99 are of all a scenario's responses, each connection's first one left out (it also waited to be accepted); latency in ms (every status counted); app CPU = µs of app CPU per request (median over the rounds)`,
  );
  if (!REDIS_URL) say(`  (no Redis phase: BENCH_REDIS_URL is empty)`);
  for (const result of measured) report(result);

  const file = await writeResults("api-keys", startedAt, {
    startedAt: startedAt.toISOString(),
    machine: machine(),
    settings: {
      keys: KEYS,
      usedKeys: USED_KEYS,
      cidrs: CIDRS,
      owners: OWNERS,
      connections: CONNECTIONS,
      rounds: ROUNDS,
      slotMs: SLOT_MS,
      settleMs: SETTLE_MS,
      warmupRounds: WARMUP_ROUNDS,
      logLevel: "warn",
      poolMax: process.env.DATABASE_POOL_MAX || 10,
      redisUrl: REDIS_URL ?? null,
    },
    buildId,
    postgres: serverVersion,
    targets: { rpsRatio: TARGET_RPS_RATIO, rpsRatioRedis: TARGET_RPS_RATIO_REDIS, p99Ratio: TARGET_P99_RATIO },
    phases: measured.map(({ phase, levels, lastUsed, usage, warmups, loads }) => ({
      label: phase.label,
      levels,
      lastUsed,
      usage,
      warmups,
      loads,
    })),
  });
  say(`Results: ${file}`);
}

async function cleanup(): Promise<void> {
  for (const w of workers) if (w.pid !== undefined && w.exitCode === null) process.kill(w.pid, "SIGKILL");
  await stopApp().catch(() => undefined);
  await dropDatabase(DB_NAME);
}

await runBenchmark(main, cleanup, `dropping ${DB_NAME}`);
