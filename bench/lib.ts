// Helpers shared by the benchmarks: settings, the bench database on BENCH_DATABASE_URL's server, the
// production build, the app as a child process of its own on 127.0.0.1, timings, figures and the
// report. Each benchmark stays one script that reads top to bottom.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SessionActor } from "@/server/auth/actor";
// Aliased: the name of a React hook, which lint rules would hold it to.
import {
  createBaseClient,
  useBaseClient as makeProcessWide,
  type BaseClient,
  type BaseClientOptions,
} from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seed } from "@/server/seed/seed";
import { freePort } from "@/server/free-port";
import { sessionActor } from "@/test/actors";
import { postgresServer } from "@/test/postgres";

// ---------------------------------------------------------------------------------------------
// Settings and output

export function intSetting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer in [${min}, ${max}]`);
  return value;
}

export const ADMIN_URL = process.env.BENCH_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
const KEEP_DB = process.env.BENCH_KEEP_DB === "1";
export const ROOT = process.cwd();
const RESULTS_DIR = path.join(ROOT, "bench/results");
/** The build folder, as next.config.mjs reads it: a second one lets a bench run beside other builds. */
export const DIST_DIR = process.env.NEXT_DIST_DIR || ".next";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const say = (line = "") => process.stdout.write(`${line}\n`);

export const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}
/** Latency figures of a run, in the samples' unit. */
export interface Latencies {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

export function latencies(samples: number[]): Latencies {
  const sorted = Float64Array.from(samples).sort();
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    mean: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length),
    max: percentile(sorted, 100),
  };
}

/** How long `call` takes, in ms. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/**
 * `pairs` timings of `a` and of `b` (ms), call by call, alternating which goes first: both see the
 * same moment of a shared machine, whose drift then cancels out of their ratio.
 */
export async function alternating(
  pairs: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[number[], number[]]> {
  const timesA: number[] = [];
  const timesB: number[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      timesA.push(await timed(a));
      timesB.push(await timed(b));
    } else {
      timesB.push(await timed(b));
      timesA.push(await timed(a));
    }
  }
  return [timesA, timesB];
}

export const pad = (text: string, width: number) => text.padEnd(width);
export const lpad = (text: string, width: number) => text.padStart(width);
export const f = (n: number | null, digits = 2) => (n === null ? "n/a" : n.toFixed(digits));

/**
 * The machine and the Node.js the figures were taken on (the app runs on the bench's own Node.js,
 * and the figures depend on it: see docs/benchmarks.md).
 */
export function machine() {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model.trim() ?? "?",
    node: process.version,
    loadavg: os.loadavg(),
  };
}
export function machineLine(): string {
  const m = machine();
  return `  machine: ${m.cpus} CPU (${m.model}), Node.js ${m.node}, load average at end ${m.loadavg.map((l) => l.toFixed(2)).join(" ")}`;
}

/** The head of a benchmark's report: a blank line, its name and time, and the machine. */
export function reportHeader(name: string): void {
  say();
  say(`svc ${name} benchmark — ${new Date().toISOString()}`);
  say(machineLine());
}

/** Writes bench/results/<name>-<time>.json (git-ignored); returns its path relative to the repo. */
export async function writeResults(name: string, startedAt: Date, results: unknown): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  return path.relative(ROOT, file);
}

// ---------------------------------------------------------------------------------------------
// Database

export const { databaseUrl, adminQuery } = postgresServer(ADMIN_URL);

/** Drops and recreates the database `name`, migrates and seeds it (sys_admin `admin`); returns its URL. */
export async function freshDatabase(
  name: string,
  adminPassword = randomBytes(18).toString("base64url"),
): Promise<string> {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  await migrateAndSeed(url, adminPassword);
  return url;
}

/** Migrates the database at `url` and seeds it (sys_admin `admin`, a random password unless given). */
export async function migrateAndSeed(
  url: string,
  adminPassword = randomBytes(18).toString("base64url"),
): Promise<void> {
  await migrate(url);
  const prisma = createBaseClient(url, { poolMax: 2 });
  try {
    await seed(prisma, { username: "admin", password: adminPassword });
  } finally {
    await prisma.$disconnect();
  }
}

/** The seeded sys_admin (`admin`) as a signed-in session, its grants read from `prisma`'s database. */
async function sysAdminSession(prisma: BaseClient): Promise<SessionActor> {
  const admin = await prisma.user.findFirstOrThrow({ where: { username: "admin" } });
  return sessionActor(prisma, admin.id);
}

/**
 * A client of the database at `url` made the process's own (the one services called in process
 * use), and the seeded sys_admin's session read through it.
 */
export async function signedInClient(url: string, options: BaseClientOptions = { poolMax: 4 }) {
  const client = createBaseClient(url, options);
  makeProcessWide(client);
  return { client, actor: await sysAdminSession(client) };
}

/** Signs in through Auth.js's credentials endpoint as the console's form does; returns the session's cookie header. */
export async function signIn(baseUrl: string, username: string, password: string): Promise<string> {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", cookieHeader());
    headers.set("sec-fetch-site", "same-origin");
    const response = await fetch(`${baseUrl}${path}`, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      if (at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const { csrfToken } = (await (await send("/api/auth/csrf")).json()) as { csrfToken: string };
  await send("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password, csrfToken }).toString(),
  });
  if (![...cookies].some(([name, value]) => name.endsWith("authjs.session-token") && value !== ""))
    throw new Error(`could not sign in as ${username}`);
  return cookieHeader();
}

export async function dropDatabase(name: string): Promise<void> {
  if (KEEP_DB) say(`Kept the database ${name} (BENCH_KEEP_DB=1): ${databaseUrl(name)}`);
  else
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((e: Error) =>
      say(`could not drop ${name}: ${e.message}`),
    );
}

// ---------------------------------------------------------------------------------------------
// Build

/** Builds into DIST_DIR when it holds no build; returns the BUILD_ID. */
export function ensureBuild(): string {
  const buildIdFile = path.join(ROOT, DIST_DIR, "BUILD_ID");
  if (!existsSync(buildIdFile)) {
    say(`No production build (${DIST_DIR}/BUILD_ID): running \`next build\` first…`);
    execFileSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      stdio: "inherit",
      timeout: 15 * 60_000,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NEXT_DIST_DIR: DIST_DIR },
    });
    if (!existsSync(buildIdFile)) throw new Error(`next build did not produce ${DIST_DIR}/BUILD_ID`);
  }
  return readFileSync(buildIdFile, "utf8").trim();
}

// ---------------------------------------------------------------------------------------------
// The app: production build as a child process of its own (or several, each on a port of its own)

export interface App {
  pid: number;
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
}

const apps = new Set<App>();

/**
 * Starts the app's server on 127.0.0.1 against the database, `env` added to its environment, on
 * `node` (default: the bench's own Node.js); resolves once /api/health answers 200.
 */
export async function startApp(
  databaseUrlValue: string,
  env: Record<string, string> = {},
  node = process.execPath,
): Promise<App> {
  const port = await freePort();
  let output = "";
  const child = spawn(node, ["scripts/server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      NEXT_DIST_DIR: DIST_DIR,
      DATABASE_URL: databaseUrlValue,
      AUTH_SECRET: randomBytes(32).toString("hex"),
      SVC_ENCRYPTION_KEYS: `v1:${randomBytes(32).toString("base64")}`,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-64_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  if (child.pid === undefined) throw new Error("could not start the app");
  const started: App = { pid: child.pid, baseUrl: `http://127.0.0.1:${port}`, child, output: () => output };
  apps.add(started);
  const deadline = Date.now() + 60_000;
  for (let attempt = 0; attempt < 1_000; attempt++) {
    if (child.exitCode !== null) throw new Error(`The app exited:\n${output}`);
    try {
      if ((await fetch(`${started.baseUrl}/api/health`)).ok) return started;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  throw new Error(`The app did not start within 60 s:\n${output}`);
}

/** Stops the apps started by startApp, each by its own pid: SIGTERM, then SIGKILL after 10 s. */
export async function stopApp(): Promise<void> {
  const running = [...apps];
  apps.clear();
  await Promise.all(running.map(stopOne));
}

async function stopOne(running: App): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => running.child.once("exit", () => resolve()));
  process.kill(running.pid, "SIGTERM");
  const timedOut = await Promise.race([exited.then(() => false), sleep(10_000).then(() => true)]);
  if (timedOut && running.child.exitCode === null) {
    process.kill(running.pid, "SIGKILL");
    await Promise.race([exited, sleep(5_000)]);
  }
}

/** The app's log lines at warn or above (JSON lines), for the report. */
export const appLogLines = (output: string) => output.split("\n").filter((l) => l.startsWith("{"));

// ---------------------------------------------------------------------------------------------
// Running a benchmark

/**
 * Runs main, then cleans up (also on SIGINT/SIGTERM and on failure, once): `cleanup` first if given,
 * then the apps startApp started are stopped and `databases` dropped. A benchmark never leaves its
 * app running or its database behind. Exits when done (a process-wide client would hold the process
 * open), non-zero on failure.
 */
export async function runBenchmark(
  main: () => Promise<void>,
  databases: readonly string[],
  cleanup: () => Promise<void> = async () => undefined,
): Promise<void> {
  let cleaning: Promise<void> | undefined;
  const cleanOnce = () =>
    (cleaning ??= (async () => {
      await cleanup();
      await stopApp().catch(() => undefined);
      for (const name of databases) await dropDatabase(name);
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      say(`\n${signal}: stopping the app and dropping ${databases.join(", ")}…`);
      void cleanOnce().finally(() => process.exit(130));
    });
  }
  try {
    await main();
    await cleanOnce();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanOnce();
    process.exit(1);
  }
}
