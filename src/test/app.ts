import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import { afterAll } from "vitest";

// The production build of the app, started on a test file's own database and driven over real
// HTTP. Its stdout and stderr are kept, so tests can search every log line it wrote.

export interface RunningApp {
  baseUrl: string;
  logs(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const TEST_AUTH_SECRET = "test-auth-secret-0123456789abcdef0123456789";
export const TEST_ENCRYPTION_KEYS = `v1:${Buffer.alloc(32, 7).toString("base64")}`;

/** `options.port`: listen there (a test that must know the URL before the start, for AUTH_URL). */
export async function startApp(databaseUrl: string, env: Record<string, string> = {}, options: { port?: number } = {}): Promise<RunningApp> {
  if (!existsSync(`${process.env.NEXT_DIST_DIR ?? ".next"}/BUILD_ID`)) throw new Error("No production build: run `npm run build` first (npm test does).");
  const port = options.port ?? (await freePort());
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
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
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  afterAll(stop);
  return { baseUrl, logs: () => output.join(""), stop };
}

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

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.cookieHeader());
    const response = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: "manual" });
    this.remember(response);
    return response;
  }

  /** Signs in through Auth.js's credentials endpoint, as the sign-in form does. */
  async signIn(username: string, password: string): Promise<boolean> {
    const { csrfToken } = (await (await this.fetch("/api/auth/csrf")).json()) as { csrfToken: string };
    await this.fetch("/api/auth/callback/credentials", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username, password, csrfToken }).toString(),
    });
    return [...this.cookies.keys()].some((k) => k.endsWith("authjs.session-token"));
  }
}
