// `npm run bench:peer`: svc against a peer, Better Auth's API key plugin, on the same machine and
// PostgreSQL: GET /api/v1/me with a long-lived key in X-API-KEY, answered 200 with the key's owner.
// svc is the production build (one process); the peer is Better Auth behind a small node:http server
// (bench/peer-better-auth.mjs, one process, the same Node.js, its own database). Each is checked
// first: 200 and the owner for a valid key, 401 for a wrong one. Then, at each of 10 and 50
// connections, a warm-up of each, and BENCH_RUNS rounds of BENCH_SECONDS of load on one then the
// other (every other round in reverse order), from autocannon in this process on 127.0.0.1, keys
// taken in turn from KEYS of each. Prints the median req/s of each, their ratio (the median of the
// rounds' ratios; target ≥ 2.5) and the p50 / p99 of all of each one's responses; for information,
// the CPU a response costs each server and its PostgreSQL backends, and the transactions a response.
//
// Like Lighthouse (bench/lighthouse.ts), Better Auth is no dependency of svc: a pinned release is
// installed with npm into a directory of the system's temporary folder (kept there and reused by
// the next run, like npx's cache), and the peer's server runs from there.
//
// Settings (environment): BENCH_SECONDS (default 10), BENCH_RUNS (default 3), BENCH_WARMUP_SECONDS
// (default 3), BENCH_CONNECTIONS (default 10,50), BENCH_PEER_STORAGE (default cache: see
// bench/peer-better-auth.mjs), BENCH_DATABASE_URL, BENCH_KEEP_DB=1.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { generateKey } from "@/server/auth/api-key-format";
import { cpuMs } from "./cpu-time";
import { CONNECTIONS } from "./load";
import {
  ADMIN_URL,
  adminQuery,
  databaseUrl,
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  latencies,
  lpad,
  machine,
  machineLine,
  median,
  ROOT,
  runBenchmark,
  say,
  sleep,
  startApp,
  stopApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_peer";
const PEER_DB_NAME = "svc_bench_peer_better_auth";
const SECONDS = intSetting("BENCH_SECONDS", 10, 1, 120);
const RUNS = intSetting("BENCH_RUNS", 3, 1, 10);
const WARMUP_SECONDS = intSetting("BENCH_WARMUP_SECONDS", 3, 0, 60);
const PEER_STORAGE = process.env.BENCH_PEER_STORAGE || "cache";
const TARGET_RATIO = 2.5;
/** Keys each side holds and sends in turn (more than the connections: no row is every request's). */
const KEYS = 100;
/** Each side's database pool: svc's default DATABASE_POOL_MAX. */
const POOL_MAX = 10;
// svc's bench keys are held to a limit far above what the bench sends (its limiter stays on).
const SVC_KEY_RATE_LIMIT = { requests: 10_000_000, window_seconds: 60 };
// Better Auth's newest release that its API key plugin (now a package of its own) was published
// for. The plugin pins @better-auth/utils and better-call exactly and takes any later
// @better-auth/core, whose own pins then conflict: the whole set of the one release is pinned.
// pg: the version svc itself runs.
const PEER_VERSION = "1.7.5";
const PEER_PACKAGES = [
  `better-auth@${PEER_VERSION}`,
  `@better-auth/api-key@${PEER_VERSION}`,
  `@better-auth/core@${PEER_VERSION}`,
  "@better-auth/utils@0.4.2",
  "better-call@1.4.0",
  `pg@${(createRequire(import.meta.url)("pg/package.json") as { version: string }).version}`,
];
const PEER_SERVER = path.join(ROOT, "bench/peer-better-auth.mjs");

/** The peer's packages in a directory of their own (installed once, then reused); returns it. */
function installPeer(): string {
  const dir = path.join(os.tmpdir(), `svc-bench-peer-${PEER_PACKAGES.join("+").replace(/[^\w.@+-]/g, "_")}`);
  const marker = path.join(dir, "installed.json");
  if (!existsSync(marker)) {
    say(`Installing ${PEER_PACKAGES.join(", ")} into ${dir}…`);
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", ...PEER_PACKAGES], {
      stdio: ["ignore", "inherit", "inherit"],
      timeout: 300_000,
    });
    writeFileSync(marker, `${JSON.stringify(PEER_PACKAGES)}\n`);
  }
  // Beside its node_modules, where its imports resolve.
  copyFileSync(PEER_SERVER, path.join(dir, "peer-better-auth.mjs"));
  return dir;
}

interface Peer {
  child: ChildProcess;
  baseUrl: string;
  keys: string[];
  user: { id: string; email: string };
  output: () => string;
}
let peer: Peer | undefined;

/** Starts the peer's server (it creates its tables, owner and keys first); resolves once it listens. */
async function startPeer(dir: string, url: string): Promise<Peer> {
  let output = "";
  const child = spawn(process.execPath, [path.join(dir, "peer-better-auth.mjs")], {
    cwd: dir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PEER_DATABASE_URL: url,
      PEER_SECRET: randomBytes(32).toString("hex"),
      PEER_KEYS: String(KEYS),
      PEER_POOL_MAX: String(POOL_MAX),
      PEER_STORAGE,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-64_000)));
  child.stderr?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-64_000)));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The peer exited:\n${output}`);
    const line = output.split("\n").find((l) => l.startsWith("{"));
    if (line) {
      const ready = JSON.parse(line) as { port: number; keys: string[]; user: Peer["user"] };
      return {
        child,
        baseUrl: `http://127.0.0.1:${ready.port}`,
        keys: ready.keys,
        user: ready.user,
        output: () => output,
      };
    }
    await sleep(100);
  }
  throw new Error(`The peer did not start within 60 s:\n${output}`);
}

async function stopPeer(): Promise<void> {
  const running = peer;
  peer = undefined;
  if (!running || running.child.pid === undefined || running.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => running.child.once("exit", () => resolve()));
  process.kill(running.child.pid, "SIGTERM");
  if (await Promise.race([exited.then(() => false), sleep(5_000).then(() => true)]))
    process.kill(running.child.pid, "SIGKILL");
}

/** svc's database: migrated, seeded, and KEYS keys of the seeded sys_admin; returns the raw keys. */
async function svcKeys(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const keys = Array.from({ length: KEYS }, () => generateKey());
    await client.query(
      `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
       SELECT (SELECT id FROM users WHERE username = 'admin'), 'peer bench', h, p,
              '["svc:system:users:read"]'::jsonb, $3::jsonb, 'system:bench'
       FROM unnest($1::text[], $2::text[]) AS t(h, p)`,
      [keys.map((k) => k.hash), keys.map((k) => k.prefix), JSON.stringify(SVC_KEY_RATE_LIMIT)],
    );
    return keys.map((k) => k.raw);
  } finally {
    await client.end();
  }
}

interface Side {
  label: string;
  baseUrl: string;
  keys: string[];
  /** The owner's field and value in the answer to a valid key. */
  owner: (body: { user?: Record<string, unknown> }) => boolean;
  wrongKey: string;
  database: string;
}

/** Before any load: 200 with the owner for a valid key, 401 for a wrong one, on each side. */
async function check(side: Side): Promise<void> {
  const call = (key: string) => fetch(`${side.baseUrl}/api/v1/me`, { headers: { "x-api-key": key } });
  const valid = await call(side.keys[0] as string);
  const body = (await valid.json()) as { user?: Record<string, unknown> };
  const wrong = await call(side.wrongKey);
  await wrong.body?.cancel();
  if (valid.status !== 200 || !side.owner(body) || wrong.status !== 401)
    throw new Error(
      `${side.label}: expected 200 with the owner, then 401; got ${valid.status} ${JSON.stringify(body)}, then ${wrong.status}`,
    );
}

interface Load {
  rps: number;
  latencies: number[];
  non2xx: number;
  errors: number;
}

/** SECONDS of load on one side at `connections`, its keys in turn. */
function load(side: Side, connections: number, seconds: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const times: number[] = [];
    let next = 0;
    const instance = autocannon(
      {
        url: `${side.baseUrl}/api/v1/me`,
        connections,
        duration: seconds,
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              headers: { ...request.headers, "x-api-key": side.keys[next++ % side.keys.length] as string },
            }),
          },
        ],
        renderProgressBar: false,
        renderResultsTable: false,
        renderLatencyTable: false,
      },
      (error, result) =>
        error
          ? reject(error)
          : resolve({
              rps: result.requests.total / seconds,
              latencies: times,
              non2xx: result.non2xx,
              errors: result.errors,
            }),
    );
    instance.on("response", (_client, _status, _bytes, ms) => times.push(ms));
  });
}

/** Transactions committed in each database so far (PostgreSQL's statistics, for information). */
async function commits(stats: pg.Client, names: string[]): Promise<number[]> {
  const { rows } = await stats.query<{ datname: string; n: string }>(
    "SELECT datname, xact_commit AS n FROM pg_stat_database WHERE datname = ANY($1::text[])",
    [names],
  );
  return names.map((name) => Number(rows.find((r) => r.datname === name)?.n ?? NaN));
}

// A server on this machine: its backends' CPU is read from /proc, like the servers' own.
const LOCAL_POSTGRES = ["127.0.0.1", "localhost", "[::1]"].includes(new URL(ADMIN_URL).hostname);

/** CPU (ms) so far of each PostgreSQL backend serving `database`; empty for a server elsewhere. */
async function backendCpu(stats: pg.Client, database: string): Promise<Map<number, number>> {
  if (!LOCAL_POSTGRES) return new Map();
  const { rows } = await stats.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
    [database],
  );
  return new Map(rows.map(({ pid }) => [pid, cpuMs(pid) ?? 0]));
}

async function main() {
  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  const buildId = ensureBuild();
  const dir = installPeer();
  say(`Creating ${DB_NAME} and ${PEER_DB_NAME} on ${new URL(databaseUrl(DB_NAME)).host}…`);
  const url = await freshDatabase(DB_NAME);
  const keys = await svcKeys(url);
  await adminQuery(`DROP DATABASE IF EXISTS "${PEER_DB_NAME}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${PEER_DB_NAME}"`);

  const app = await startApp(url, { DATABASE_POOL_MAX: String(POOL_MAX) });
  peer = await startPeer(dir, databaseUrl(PEER_DB_NAME));
  const peerUser = peer.user;
  const sides: Side[] = [
    {
      label: "svc",
      baseUrl: app.baseUrl,
      keys,
      owner: (body) => body.user?.username === "admin",
      wrongKey: generateKey().raw,
      database: DB_NAME,
    },
    {
      label: "Better Auth",
      baseUrl: peer.baseUrl,
      keys: peer.keys,
      owner: (body) => body.user?.id === peerUser.id && body.user?.email === peerUser.email,
      // The plugin's own shape (64 letters), in no row.
      wrongKey: Array.from(randomBytes(64), (b) => String.fromCharCode(97 + (b % 26))).join(""),
      database: PEER_DB_NAME,
    },
  ];
  for (const side of sides) await check(side);
  say(`Both answer 200 with the key's owner for a valid key, 401 for a wrong one.`);
  const databases = sides.map((s) => s.database);
  const stats = new pg.Client({ connectionString: ADMIN_URL });
  await stats.connect();
  // A backend's statistics reach the view once it has been idle a moment (here and at the end).
  await sleep(1_500);
  const commitsBefore = await commits(stats, databases);
  // Every response of the warm-ups and the rounds, for the transactions per response.
  const served = sides.map(() => 0);
  // The processes whose CPU a response costs: each server's own, and its PostgreSQL backends' (run()).
  const pids = [app.pid, peer.child.pid as number];

  const levels = [];
  for (const connections of CONNECTIONS) {
    say(
      `At ${connections} connections: warm-up ${WARMUP_SECONDS} s each, then ${RUNS} rounds of ${SECONDS} s each, alternating…`,
    );
    const run = async (s: number, seconds: number) => {
      const side = sides[s] as Side;
      const cpuBefore = cpuMs(pids[s] as number);
      const backendsBefore = await backendCpu(stats, side.database);
      const result = await load(side, connections, seconds);
      const cpuAfter = cpuMs(pids[s] as number);
      const backendsAfter = await backendCpu(stats, side.database);
      const n = result.latencies.length;
      served[s] = (served[s] as number) + n;
      // A backend opened during the load counts from zero; one closed during it is lost (rare).
      let backendMs = 0;
      for (const [pid, ms] of backendsAfter) backendMs += ms - (backendsBefore.get(pid) ?? 0);
      const cpuUs =
        cpuBefore === undefined || cpuAfter === undefined || n === 0 ? null : ((cpuAfter - cpuBefore) * 1000) / n;
      const postgresUs = LOCAL_POSTGRES && n > 0 ? (backendMs * 1000) / n : null;
      return { ...result, cpuUs, postgresUs };
    };
    if (WARMUP_SECONDS > 0) for (const s of sides.keys()) await run(s, WARMUP_SECONDS);
    const runs: Awaited<ReturnType<typeof run>>[][] = sides.map(() => []);
    for (let round = 0; round < RUNS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const s of order) runs[s]?.push(await run(s, SECONDS));
    }
    const per = sides.map((side, s) => {
      const all = runs[s] as Awaited<ReturnType<typeof run>>[];
      const medianOf = (values: (number | null)[]) => {
        const known = values.filter((v) => v !== null);
        return known.length ? median(known) : null;
      };
      const lat = latencies(all.flatMap((r) => r.latencies));
      return {
        label: side.label,
        rps: median(all.map((r) => r.rps)),
        roundRps: all.map((r) => r.rps),
        p50: lat.p50,
        p99: lat.p99,
        responses: lat.n,
        non2xx: all.reduce((n, r) => n + r.non2xx, 0),
        errors: all.reduce((n, r) => n + r.errors, 0),
        cpuUs: medianOf(all.map((r) => r.cpuUs)),
        postgresUs: medianOf(all.map((r) => r.postgresUs)),
      };
    });
    const [svc, better] = per as [(typeof per)[number], (typeof per)[number]];
    // Each round's two loads ran back to back: a drift of the shared machine between rounds cancels
    // out of their ratio, which it does not out of a ratio of medians.
    const ratios = svc.roundRps.map((rps, i) => rps / (better.roundRps[i] as number));
    levels.push({
      connections,
      svc,
      peer: better,
      ratio: median(ratios),
      lowest: Math.min(...ratios),
      highest: Math.max(...ratios),
    });
  }
  await sleep(1_500);
  const commitsAfter = await commits(stats, databases);
  await stats.end();
  const peerOutput = peer.output();
  await stopPeer();
  await stopApp();

  const loadAtEnd = os.loadavg();
  const busy = Math.max(loadAtStart[0] ?? 0, loadAtEnd[0] ?? 0) > 4;
  say();
  say(`svc peer benchmark: API key verification, svc / Better Auth — ${new Date().toISOString()}`);
  say(machineLine());
  say(
    `  load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}${busy ? " — the machine was busy (above 4 on its 2 cores): absolute figures are low, the ratio is the figure" : ""}`,
  );
  say(
    `  svc: production build ${buildId}, one process, LOG_LEVEL=warn, DATABASE_POOL_MAX=${POOL_MAX}; its per-key rate limiter on, in process, the keys allowed ${SVC_KEY_RATE_LIMIT.requests.toLocaleString("en")} per ${SVC_KEY_RATE_LIMIT.window_seconds} s; GET /api/v1/me`,
  );
  say(
    `  peer: better-auth ${PEER_VERSION} with @better-auth/api-key ${PEER_VERSION}, one process on the same Node.js, NODE_ENV=production, pg Pool max ${POOL_MAX} (its Kysely adapter); storage ${PEER_STORAGE}; its key rate limit and its request rate limit off, deferUpdates on; the key verified by enableSessionForAPIKeys (auth.api.getSession) in a node:http route GET /api/v1/me`,
  );
  say(
    `  load: autocannon in the bench's process, keep-alive, ${KEYS} keys a side in turn; at each level a warm-up of ${WARMUP_SECONDS} s each, then ${RUNS} rounds of ${SECONDS} s on each side, every other round in reverse order`,
  );
  say(
    `  figures: req/s the median of the rounds; ratio svc / peer the median of the rounds' ratios [lowest to highest]; p50 and p99 of all of a side's responses in the rounds, in ms; CPU = µs of the server process's CPU a response, +PG = µs of its PostgreSQL backends' (medians of the rounds; n/a for a server elsewhere), for information`,
  );
  say();
  say(
    `${lpad("conns", 5)}${lpad("svc req/s", 11)}${lpad("peer req/s", 12)}${lpad("ratio", 8)}${lpad("range", 14)}${lpad("svc p50", 9)}${lpad("p99", 8)}${lpad("peer p50", 10)}${lpad("p99", 8)}${lpad("svc CPU", 9)}${lpad("+PG", 7)}${lpad("peer CPU", 10)}${lpad("+PG", 7)}  target ≥ ${TARGET_RATIO}`,
  );
  for (const level of levels) {
    const valid = [level.svc, level.peer].every((x) => x.non2xx === 0 && x.errors === 0);
    say(
      `${lpad(String(level.connections), 5)}${lpad(level.svc.rps.toFixed(0), 11)}${lpad(level.peer.rps.toFixed(0), 12)}${lpad(`${level.ratio.toFixed(2)}×`, 8)}${lpad(`${f(level.lowest)}–${f(level.highest)}`, 14)}${lpad(f(level.svc.p50, 1), 9)}${lpad(f(level.svc.p99, 1), 8)}${lpad(f(level.peer.p50, 1), 10)}${lpad(f(level.peer.p99, 1), 8)}${lpad(f(level.svc.cpuUs, 0), 9)}${lpad(f(level.svc.postgresUs, 0), 7)}${lpad(f(level.peer.cpuUs, 0), 10)}${lpad(f(level.peer.postgresUs, 0), 7)}  ${level.ratio >= TARGET_RATIO ? "PASS" : "FAIL"}${valid ? "" : `  (INVALID: non-2xx ${level.svc.non2xx} / ${level.peer.non2xx}, errors ${level.svc.errors} / ${level.peer.errors})`}`,
    );
  }
  const perResponse = sides.map((side, s) => ({
    label: side.label,
    transactions: (commitsAfter[s] as number) - (commitsBefore[s] as number),
    responses: served[s] as number,
  }));
  say(
    `Database transactions per response over the rounds and warm-ups (pg_stat_database, for information): ${perResponse.map((x) => `${x.label} ${(x.transactions / Math.max(1, x.responses)).toFixed(3)}`).join(", ")}`,
  );
  const peerErrors = peerOutput.split("\n").filter((l) => l && !l.startsWith("{"));
  if (peerErrors.length)
    say(`The peer wrote ${peerErrors.length} line(s); the last ones:\n${peerErrors.slice(-5).join("\n")}`);
  const file = await writeResults("peer", startedAt, {
    startedAt: startedAt.toISOString(),
    machine: machine(),
    loadAtStart,
    buildId,
    settings: { seconds: SECONDS, runs: RUNS, warmupSeconds: WARMUP_SECONDS, keys: KEYS, poolMax: POOL_MAX },
    peer: { packages: PEER_PACKAGES, storage: PEER_STORAGE },
    target: TARGET_RATIO,
    levels,
    transactions: perResponse,
  });
  say(`Results: ${file}`);
}

await runBenchmark(main, [DB_NAME, PEER_DB_NAME], stopPeer);
