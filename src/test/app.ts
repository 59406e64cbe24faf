import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, expect, vi } from "vitest";
import { freePort } from "@/server/free-port";

// The production build of the app, started on a test file's own database and driven over real
// HTTP. Its stdout and stderr are kept, so tests can search every log line it wrote. Every answer
// a test reads from it, through these helpers or its own fetch, is checked against the route's
// declared response schema, or the problem shape of its error code (src/test/checked-fetch.ts).

export interface RunningApp {
  baseUrl: string;
  /** The app's server process. */
  process: ChildProcess;
  /** fetch against the app at a path. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  logs(): string;
  stop(): Promise<void>;
}

export const TEST_AUTH_SECRET = "test-auth-secret-0123456789abcdef0123456789";
export const TEST_ENCRYPTION_KEYS = `v1:${Buffer.alloc(32, 7).toString("base64")}`;

/** `options.port`: listen there (a test that must know the URL before the start, for AUTH_URL). */
export async function startApp(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: { port?: number } = {},
): Promise<RunningApp> {
  if (!existsSync(`${process.env.NEXT_DIST_DIR ?? ".next"}/BUILD_ID`))
    throw new Error("No production build: run `npm run build` first (npm test does).");
  const port = options.port ?? (await freePort());
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, ["scripts/server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: "4",
      AUTH_SECRET: TEST_AUTH_SECRET,
      SVC_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
      LOG_LEVEL: "info",
      SVC_BOOKKEEPING_FLUSH_MS: "200",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The app exited: ${output.join("")}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`The app did not start: ${output.join("")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // SIGTERM, as an orchestrator stops the app; a process still there after its grace period and
  // hooks (scripts/server.test.ts holds it to them) is killed, so that no test leaves one behind.
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const kill = setTimeout(() => child.kill("SIGKILL"), STOP_BEFORE_KILL_MS);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
  running.add(stop);
  child.once("exit", () => running.delete(stop));
  return {
    baseUrl,
    process: child,
    fetch: (path, init) => fetch(new URL(path, baseUrl), init),
    logs: () => output.join(""),
    stop,
  };
}

/**
 * Two app processes on one database sharing the Redis of this machine (REDIS_URL, else
 * 127.0.0.1:6379) under counters of their own, as two replicas behind a load balancer. Returned once
 * each counts in Redis: until it has connected, a replica counts alone.
 */
export async function startReplicas(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<[RunningApp, RunningApp]> {
  const shared = {
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_KEY_PREFIX: `svc-test-${randomBytes(6).toString("hex")}:`,
    ...env,
  };
  const replicas = await Promise.all([startApp(databaseUrl, shared), startApp(databaseUrl, shared)]);
  for (const app of replicas) {
    await vi.waitFor(
      async () => expect(await (await app.fetch("/api/metrics")).text()).toMatch(/^svc_rate_limit_shared 1$/m),
      { timeout: 10_000, interval: 50 },
    );
  }
  return replicas as [RunningApp, RunningApp];
}

const STOP_BEFORE_KILL_MS = 30_000;

// Every app a test file started, stopped when the file is done. Registered here, as the file's
// modules are loaded: a hook registered while a test runs (an app started inside a test) would never
// run, and that app would outlive the file.
const running = new Set<() => Promise<void>>();
afterAll(() => Promise.all([...running].map((stop) => stop())));

/** A minimal cookie jar for a signed-in console session over fetch. */
export class Browserless {
  private readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  private remember(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** As a browser on one of the app's own pages: cookies, and Sec-Fetch-Site same-origin unless told otherwise. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.cookieHeader());
    if (!headers.has("sec-fetch-site")) headers.set("sec-fetch-site", "same-origin");
    const response = await fetch(new URL(path, this.baseUrl), { ...init, headers, redirect: "manual" });
    this.remember(response);
    return response;
  }

  /** Posts to Auth.js's credentials endpoint, as the sign-in form does: answers where it sends the browser. */
  async postCredentials(fields: Record<string, string>): Promise<URL> {
    const { csrfToken } = (await (await this.fetch("/api/auth/csrf")).json()) as { csrfToken: string };
    const response = await this.fetch("/api/auth/callback/credentials", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, csrfToken }).toString(),
    });
    return new URL(response.headers.get("location") ?? "/", this.baseUrl);
  }

  /** Whether a session cookie is held. */
  hasSession(): boolean {
    return [...this.cookies].some(([k, v]) => k.endsWith("authjs.session-token") && v !== "");
  }

  /** Signs in through Auth.js's credentials endpoint, as the sign-in form does. */
  async signIn(username: string, password: string): Promise<boolean> {
    await this.postCredentials({ username, password });
    return this.hasSession();
  }

  /** The second step of a sign-in with two-factor authentication: a code after the password. */
  async signInWithCode(code: string): Promise<boolean> {
    await this.postCredentials({ code });
    return this.hasSession();
  }
}

/** Who calls: an API key, a signed-in console session, or nobody. */
export type Caller = { key: string } | { session: Browserless } | { anonymous: true };

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** One JSON request to the app as `as`, the answer read. */
export async function request<T = Record<string, unknown>>(
  app: RunningApp,
  as: Caller,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
  if ("key" in as) headers["x-api-key"] = as.key;
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const response = "session" in as ? await as.session.fetch(path, init) : await app.fetch(path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/**
 * Sends `send` (a request with an API key) until the app answers it from its key cache (its metrics
 * count one more hit), so that what a test changes next is a change to a cached key. The app
 * caches keys only once it hears invalidations, which it starts listening for at its first key.
 */
export async function untilKeyCached(
  app: RunningApp,
  send: () => Promise<Response>,
  metricsToken?: string,
): Promise<void> {
  const hits = async () => {
    const metrics = await app.fetch("/api/metrics", {
      headers: metricsToken ? { authorization: `Bearer ${metricsToken}` } : {},
    });
    return Number(/^svc_api_key_cache_total\{result="hit"\} (\d+)$/m.exec(await metrics.text())?.[1] ?? 0);
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    const before = await hits();
    const answer = await send();
    if (!answer.ok) throw new Error(`the key was refused: ${answer.status}`);
    if ((await hits()) > before) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the app never answered the key from its cache");
}

/** Polls /api/ready until it answers 200 with invalidations arriving by `route`; answers its body. */
export async function untilReady(app: Pick<RunningApp, "fetch">, route: string) {
  let body: { invalidation?: string; warning?: string } = {};
  await vi.waitFor(
    async () => {
      const response = await app.fetch("/api/ready");
      expect(response.status).toBe(200);
      body = (await response.json()) as typeof body;
      expect(body.invalidation).toBe(route);
    },
    { timeout: 15_000, interval: 100 },
  );
  return body;
}

/**
 * Bound of a test that runs the CLI as a process (TypeScript compiled at each start) or starts the
 * embedded database (PGlite: start, migrate, seed): seconds on an idle machine, far more on a busy
 * two-core one.
 */
export const PROCESS_TEST_TIMEOUT_MS = 120_000;
