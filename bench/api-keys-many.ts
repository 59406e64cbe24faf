// The many-keys phase of `npm run bench`: 50,000 keys drawn at random against one hot key, to check
// that a platform's many keys stay in the key cache and serve nearly as fast (target ≥ 0.9).
// See docs/benchmarks.md#api-keys.

import { processTree } from "./cpu-time";
import { f, lpad, pad, say, sleep, startApp, stopApp } from "./lib";
import {
  gcText,
  pairedRatio,
  ROUNDS,
  runLevel,
  scenarioFigures,
  WARMUP_ROUNDS,
  type LevelLoad,
  type Scenario,
} from "./load";

export const TARGET_MANY_KEYS_RATIO = 0.9;
const WARM_CONCURRENCY = 50;

/** A counter or gauge of the app's metrics, summed over its label sets matching `labels`. */
async function metric(baseUrl: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${baseUrl}/api/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(name) && line.includes(labels) && /^[a-z_]+(\{|\s)/.test(line))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

async function cacheCounts(baseUrl: string) {
  const name = "svc_api_key_cache_total";
  return {
    hit: await metric(baseUrl, name, 'result="hit"'),
    stale: await metric(baseUrl, name, 'result="stale"'),
    miss: await metric(baseUrl, name, 'result="miss"'),
  };
}

/**
 * Each key once, WARM_CONCURRENCY at a time; every answer must be 200. A 503 (the database busy
 * past its bound, on a machine shared with other work) is tried again, a few times; returns how many.
 */
async function sendEachOnce(baseUrl: string, keys: string[]): Promise<number> {
  let next = 0;
  let retried = 0;
  const one = async () => {
    for (let i = next++; i < keys.length; i = next++) {
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(`${baseUrl}/api/v1/me`, { headers: { "x-api-key": keys[i] as string } });
        await response.arrayBuffer();
        if (response.status === 200) break;
        if (response.status !== 503 || attempt >= 5) throw new Error(`warm-up: key ${i} answered ${response.status}`);
        retried += 1;
        await sleep(200);
      }
    }
  };
  await Promise.all(Array.from({ length: WARM_CONCURRENCY }, one));
  return retried;
}

export async function measureManyKeys(
  url: string,
  keys: string[],
  connections: number[],
  appEnv: Record<string, string>,
) {
  const started = await startApp(url, { ...appEnv, REDIS_URL: "" });
  const hot = keys[0] as string;
  say(`[many keys] App started, pid ${started.pid}; using each of ${keys.length.toLocaleString("en")} keys once…`);
  const heap = "svc_nodejs_heap_size_used_bytes";
  const heapBefore = await metric(started.baseUrl, heap);
  const warmStart = performance.now();
  const retried = await sendEachOnce(started.baseUrl, keys);
  const warmSeconds = (performance.now() - warmStart) / 1000;
  const heapAfter = await metric(started.baseUrl, heap);

  const scenarios: Scenario[] = [
    { id: "hot", label: "GET /api/v1/me, one hot key", path: "/api/v1/me", keys: [hot], expectStatus: 200 },
    {
      id: "many",
      label: `GET /api/v1/me, ${keys.length.toLocaleString("en")} keys at random`,
      path: "/api/v1/me",
      keys,
      random: true,
      expectStatus: 200,
    },
  ];
  const appPids = processTree(started.pid);
  const levels = [];
  for (const n of connections) {
    if (WARMUP_ROUNDS > 0) await runLevel(started.baseUrl, appPids, scenarios, n, WARMUP_ROUNDS);
    say(`[many keys] Measuring at ${n} connections: ${ROUNDS} rounds, alternating one hot key and many keys…`);
    const cacheBefore = await cacheCounts(started.baseUrl);
    const load: LevelLoad = await runLevel(started.baseUrl, appPids, scenarios, n, ROUNDS);
    const cacheAfter = await cacheCounts(started.baseUrl);
    const [hotFigures, manyFigures] = scenarios.map((s) => scenarioFigures(load, s));
    const paired = pairedRatio(hotFigures?.slotRps ?? [], manyFigures?.slotRps ?? []);
    levels.push({
      connections: n,
      hot: hotFigures,
      many: manyFigures,
      ...paired,
      pass: paired.ratio >= TARGET_MANY_KEYS_RATIO,
      cache: {
        hit: cacheAfter.hit - cacheBefore.hit,
        stale: cacheAfter.stale - cacheBefore.stale,
        miss: cacheAfter.miss - cacheBefore.miss,
      },
      gc: load.gc,
      valid:
        scenarios.every((s) => (scenarioFigures(load, s).expectedShare ?? 0) >= 0.999) &&
        load.errors + load.timeouts === 0,
    });
  }
  await stopApp();
  return { keys: keys.length, warmSeconds, retried, heapBefore, heapAfter, levels };
}

export function reportManyKeys(many: Awaited<ReturnType<typeof measureManyKeys>>) {
  say();
  say(
    `== many keys: ${many.keys.toLocaleString("en")} keys drawn at random against one hot key (limits in process) ==`,
  );
  say(
    `warm-up: each key used once in ${many.warmSeconds.toFixed(1)} s (${many.retried} answers of 503 tried again); app heap used ${(many.heapBefore / 2 ** 20).toFixed(0)} → ${(many.heapAfter / 2 ** 20).toFixed(0)} MiB (garbage not yet collected included)`,
  );
  const header = `${pad("conns", 6)}${pad("scenario", 44)}${lpad("req/s", 9)}${lpad("p50 ms", 9)}${lpad("p99 ms", 9)}`;
  say(header);
  for (const level of many.levels)
    for (const x of [level.hot, level.many])
      if (x)
        say(
          `${pad(String(level.connections), 6)}${pad(x.label, 44)}${lpad(x.rps.toFixed(0), 9)}${lpad(f(x.p50), 9)}${lpad(f(x.p99), 9)}`,
        );
  for (const level of many.levels) {
    const lookups = level.cache.hit + level.cache.stale + level.cache.miss;
    say(
      `  ${lpad(String(level.connections), 3)} conns: throughput many/hot = ${level.ratio.toFixed(3)} (target ≥ ${TARGET_MANY_KEYS_RATIO}) ${level.pass ? "PASS" : "FAIL"} [${f(level.p10)} to ${f(level.p90)}; ${level.ofTotals.toFixed(3)}${level.emptyRounds ? `; ${level.emptyRounds} rounds without a pair` : ""}];` +
        `  key cache: ${((100 * (level.cache.hit + level.cache.stale)) / Math.max(1, lookups)).toFixed(1)}% hits of ${lookups} (${level.cache.miss} misses);  full collections ${gcText(level.gc)}${level.valid ? "" : "  (INVALID: unexpected statuses or errors)"}`,
    );
  }
}
