// Load in slots, for the benchmarks that compare scenarios under load (bench/api-keys.ts): each connection level is one load-generator process (bench/load-worker.mjs,
// autocannon) in which the scenarios take turns on the same connections, in short slots, because
// absolute figures drift on a shared machine and ratios of neighbouring slots do not. Here: the
// slot settings, running a level, and the figures of a scenario.

import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { CLK_TCK } from "./cpu-time";
import { intSetting, median, percentile, ROOT } from "./lib";

// The scenarios take turns on the same connections in slots of SLOT_MS, one slot each per round:
// the machine's speed drifts within seconds (the same work has cost a third more CPU from one
// second to the next), so a pair of neighbouring slots sees the same machine, and many short pairs
// judge the ratio more closely than a few long ones. The first SETTLE_MS of a slot are not measured:
// the connections are still answering the previous scenario's requests then.
export const ROUNDS = intSetting("BENCH_ROUNDS", 120, 1, 1_000);
export const SLOT_MS = intSetting("BENCH_SLOT_MS", 400, 100, 10_000);
export const SETTLE_MS = intSetting("BENCH_SETTLE_MS", 100, 0, SLOT_MS - 50);
export const WARMUP_ROUNDS = intSetting("BENCH_WARMUP_ROUNDS", 8, 0, 100);
/** The connection levels, each measured on its own. */
export const CONNECTIONS = (process.env.BENCH_CONNECTIONS || "10,50").split(",").map((s) => {
  const n = Number(s.trim());
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new Error("BENCH_CONNECTIONS: comma-separated integers in [1, 1000]");
  return n;
});
if (CONNECTIONS.length > 5) throw new Error("BENCH_CONNECTIONS: at most 5 levels");

const WORKER = path.join(ROOT, "bench/load-worker.mjs");

export interface Scenario {
  id: string;
  label: string;
  path: string;
  keys: string[] | null;
  /** Keys drawn at random for each request, instead of in turn. */
  random?: boolean;
  /** A verification: POST with `key` in X-API-KEY and each of `keys` in the body (with `body`'s fields), not the header. */
  verify?: { key: string; body: Record<string, unknown> };
  expectStatus: number;
}

/** What the load generator saw of one scenario (bench/load-worker.mjs). */
interface ScenarioLoad {
  responses: number;
  statuses: Record<string, number>;
  /** Responses per 0.1 ms of latency, each connection's first left out. */
  histogram: Record<string, number>;
  firstResponses: number;
  /** How many distinct keys of the scenario were sent (at most). */
  keysSent: number;
  /** One per round: the responses completed in the slot's window, and the app's CPU (ms) over it. */
  slots: { responses: number; cpuMs: number | null }[];
}

export interface GcCounts {
  /** Full (mark-compact) collections. */
  major: number;
  /** Main-thread pause of every kind of collection, in ms. */
  pauseMs: number;
}

export interface LevelLoad {
  connections: number;
  rounds: number;
  seconds: number;
  /** Length of each slot's measured window, in ms. */
  windowMs: number;
  scenarios: Record<string, ScenarioLoad>;
  errors: number;
  timeouts: number;
  loadGeneratorCpuMs: number;
  /** The app's garbage collections during the run (from its metrics), null if unreadable. */
  gc: GcCounts | null;
}

const workers = new Set<ChildProcess>();

/** Kills the load generators still running (a benchmark's cleanup). */
export function killWorkers(): void {
  for (const w of workers) if (w.pid !== undefined && w.exitCode === null) process.kill(w.pid, "SIGKILL");
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

export const gcText = (gc: GcCounts | null): string =>
  gc ? `${gc.major} (pauses of all collections ${gc.pauseMs.toFixed(0)} ms)` : "unknown";

/**
 * The scenarios in turns at one connection level, `rounds` rounds of one slot each. `appPids`: the
 * processes whose CPU a slot reports; the collections counted are those of the app at `baseUrl`.
 */
export async function runLevel(
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
    scenarios: scenarios.map(({ id, path: p, keys, random, verify }) => ({
      id,
      path: p,
      keys,
      random: random === true,
      verify,
    })),
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
export function scenarioFigures(level: LevelLoad, scenario: Scenario) {
  const load = level.scenarios[scenario.id] as ScenarioLoad;
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

/**
 * Throughput of `y` against `x` slot by slot: the median of the per-round ratios (each pair ran a
 * fraction of a second apart, so a drift of the machine between rounds cancels out of it, which it
 * does not out of a ratio of medians), their 10th and 90th percentiles, and the ratio of the totals.
 * A round in which either slot completed nothing (a pause of the app longer than the slot's
 * window, on a machine shared with other work) has no ratio: it is left out, and counted.
 */
export function pairedRatio(x: number[], y: number[]) {
  const pairs = x.flatMap((value, i) => (value > 0 && (y[i] ?? 0) > 0 ? [(y[i] as number) / value] : []));
  const sorted = [...pairs].sort((p, q) => p - q);
  return {
    ratio: median(pairs),
    p10: percentile(sorted, 10),
    p90: percentile(sorted, 90),
    ofTotals: y.reduce((n, v) => n + v, 0) / x.reduce((n, v) => n + v, 0),
    emptyRounds: x.length - pairs.length,
  };
}
