// `npm run bench`: whether a request with an API key costs little more than one without, on the
// production build with 100,000 keys, limits counted in process and then in Redis. Scenarios take
// turns in short slots on the same connections, since ratios of neighbouring slots hold on a shared
// machine where absolute figures drift. Scenarios, targets and settings: docs/benchmarks.md#api-keys.

import { measureBudgets, reportBudgets, TARGET_CREDITS_RATIO, TARGET_VERIFY_RATIO } from "./api-keys-budget";
import { measureTracing, reportTracing, TARGET_TRACED_RATIO } from "./api-keys-tracing";
import { apiKeyUpdateStats, setupDatabase, type Keys } from "./api-keys-data";
import { measureManyKeys, reportManyKeys, TARGET_MANY_KEYS_RATIO } from "./api-keys-many";
import { processTree } from "./cpu-time";
import {
  ADMIN_URL,
  appLogLines,
  DIST_DIR,
  ensureBuild,
  f,
  intSetting,
  lpad,
  machine,
  pad,
  reportHeader,
  runBenchmark,
  say,
  sleep,
  startApp,
  stopApp,
  writeResults,
} from "./lib";
import {
  CONNECTIONS,
  gcText,
  killWorkers,
  pairedRatio,
  ROUNDS,
  runLevel,
  scenarioFigures,
  SETTLE_MS,
  SLOT_MS,
  WARMUP_ROUNDS,
  type LevelLoad,
  type Scenario,
} from "./load";

// ---------------------------------------------------------------------------------------------
// Settings

const DB_NAME = "svc_bench";
const KEYS = intSetting("BENCH_KEYS", 100_000, 1_000, 1_000_000);
const USED_KEYS = intSetting("BENCH_USED_KEYS", 200, 1, 5_000);
// The many-keys phase: this many keys in use, drawn at random, against one hot key.
const MANY_KEYS = intSetting("BENCH_MANY_KEYS", 50_000, 0, 500_000);
if (USED_KEYS + MANY_KEYS > KEYS) throw new Error("BENCH_KEYS must hold BENCH_USED_KEYS + BENCH_MANY_KEYS");
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
const LAST_USED_INTERVAL_S = 60; // api-key-usage.ts: at most one write per key per 60 s
const FLUSH_INTERVAL_S = 5; // api-key-usage.ts: pending writes flushed every 5 s
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
// BENCH_ONLY=budgets or BENCH_ONLY=tracing runs that phase alone (the others take most of the run's time).
const ONLY = process.env.BENCH_ONLY || undefined;
if (ONLY && ONLY !== "budgets" && ONLY !== "tracing")
  throw new Error("BENCH_ONLY names no phase but budgets or tracing");

type ScenarioId = "a" | "b" | "c" | "c'" | "s";

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

  const scenarios: (Scenario & { id: ScenarioId })[] = [
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
    {
      id: "s",
      label: `GET /api/v1/me, ${keys.service.length} service keys`,
      path: "/api/v1/me",
      keys: keys.service,
      expectStatus: 200,
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
      ScenarioId,
      ReturnType<typeof scenarioFigures>
    >;
    // Judged on the median of the paired ratios (see load.ts).
    const paired = pairedRatio(per.a.slotRps, per.b.slotRps);
    const rpsRatio = paired.ratio;
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
      pairs: { p10: paired.p10, p90: paired.p90, emptyRounds: paired.emptyRounds },
      ratioOfTotals: paired.ofTotals,
      gc: load.gc,
      loadGeneratorUsPerResponse:
        (load.loadGeneratorCpuMs * 1000) / Object.values(load.scenarios).reduce((n, s) => n + s.responses, 0),
      valid,
    };
  });

  // Valid keys sent: the sanity check's first key, then the first N of each list in each run.
  const keysUsed =
    Math.max(1, ...[...warmups, ...loads].map((load) => load.scenarios.b?.keysSent ?? 0)) +
    Math.max(0, ...[...warmups, ...loads].map((load) => load.scenarios.s?.keysSent ?? 0));
  // Plus, once per key, its last address and user agent (unchanged afterwards: not written again).
  const bound = keysUsed * (runSeconds / LAST_USED_INTERVAL_S) + 2 * keysUsed;
  const writes = after.nTupUpd - before.nTupUpd;
  const writesCrossCheck = after.rowsUpdated - before.rowsUpdated;
  const writesPass = writes <= bound && writesCrossCheck <= bound;
  // Usage: every response to a valid key counted once (the two sanity requests included); a run
  // may end with requests answered that its load generator no longer counted.
  const validResponses =
    [...warmups, ...loads].reduce(
      (n, load) => n + (load.scenarios.b?.responses ?? 0) + (load.scenarios.s?.responses ?? 0),
      0,
    ) + 2;
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
      `  ${lpad(String(level.connections), 3)} conns: throughput b/a = ${level.rpsRatio.toFixed(3)} (target ≥ ${phase.rpsTarget}) ${level.rpsPass ? "PASS" : "FAIL"} [${f(level.pairs.p10)} to ${f(level.pairs.p90)}; ${level.ratioOfTotals.toFixed(3)}${level.pairs.emptyRounds ? `; ${level.pairs.emptyRounds} rounds without a pair` : ""}];` +
        `  p99 b/a = ${level.p99Ratio.toFixed(3)} (target ≤ ${TARGET_P99_RATIO}) ${level.p99Pass ? "PASS" : "FAIL"};` +
        `  app CPU per request b/a = ${f(level.cpuRatio)};  full collections ${gcText(level.gc)};  load generator ${level.loadGeneratorUsPerResponse.toFixed(0)} µs CPU a response${level.valid ? "" : "  (INVALID: unexpected statuses or errors)"}`,
    );
    const { b, s } = level.scenarios;
    say(
      `  ${lpad(String(level.connections), 3)} conns: service-account keys (s) / personal keys (b): throughput ${(s.rps / b.rps).toFixed(3)}, p99 ${(s.p99 / b.p99).toFixed(3)} (for information: the same key path, the owner a service account)`,
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
  const { url, keys, serverVersion } = await setupDatabase({
    dbName: DB_NAME,
    keys: KEYS,
    usedKeys: USED_KEYS,
    manyKeys: MANY_KEYS,
    owners: OWNERS,
    allowedCidrs: ALLOWED_CIDRS,
    rateLimit: BENCH_RATE_LIMIT,
  });

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
  if (!ONLY) for (const phase of phases) measured.push(await measure(phase, url, keys));
  const many = keys.many.length > 0 && !ONLY ? await measureManyKeys(url, keys.many, CONNECTIONS, BENCH_APP_ENV) : null;
  const budgets =
    !ONLY || ONLY === "budgets" ? await measureBudgets(url, keys.valid, CONNECTIONS, BENCH_APP_ENV) : null;
  const tracing =
    !ONLY || ONLY === "tracing" ? await measureTracing(url, keys.valid, CONNECTIONS, BENCH_APP_ENV) : null;

  reportHeader("API-key");
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
  if (many) reportManyKeys(many);
  if (budgets) reportBudgets(budgets);
  if (tracing) reportTracing(tracing);

  const file = await writeResults("api-keys", startedAt, {
    startedAt: startedAt.toISOString(),
    machine: machine(),
    settings: {
      keys: KEYS,
      usedKeys: USED_KEYS,
      manyKeys: MANY_KEYS,
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
    targets: {
      rpsRatio: TARGET_RPS_RATIO,
      rpsRatioRedis: TARGET_RPS_RATIO_REDIS,
      p99Ratio: TARGET_P99_RATIO,
      manyKeysRatio: TARGET_MANY_KEYS_RATIO,
      creditsRatio: TARGET_CREDITS_RATIO,
      verifyRatio: TARGET_VERIFY_RATIO,
      tracedRatio: TARGET_TRACED_RATIO,
    },
    phases: measured.map(({ phase, levels, lastUsed, usage, warmups, loads }) => ({
      label: phase.label,
      levels,
      lastUsed,
      usage,
      warmups,
      loads,
    })),
    manyKeys: many,
    budgets,
    tracing,
  });
  say(`Results: ${file}`);
}

await runBenchmark(main, [DB_NAME], async () => killWorkers());
