import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, inject } from "vitest";

// The operator CLI as an operator runs it: a child process of its own (`npm run svc -- …`, and
// `npm start`, which is `svc serve`), its environment this process's with the test's changes.

/** Node.js's arguments for a TypeScript file of the project's, from its folder (compiled as it starts). */
export const TSX = ["node_modules/tsx/dist/cli.mjs", "--import", "./scripts/server-only.mjs"];

/**
 * Node.js's arguments for the CLI, from the project's folder: src/cli/main.ts as the run's global
 * setup built it once (test/global-setup.ts), where `npm run svc` has tsx compile it at each start.
 */
export const CLI = ["--import", "./scripts/server-only.mjs", inject("cliBundle")];

export interface CliRun {
  code: number | null;
  stdout: string;
  /** Without its trailing newline: a refusal is one line. */
  stderr: string;
}

/** `npm run svc -- <args>`, run to its end. */
export function svc(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr: stderr.trim() }));
  });
}

export interface Serving {
  process: ChildProcess;
  /** What it printed so far, the app's log lines included. */
  output(): string;
  /** Signals its whole process group (the CLI, and the app server it started) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const serving = new Set<Serving>();
// Registered as the test file loads: a hook registered inside a test would never run.
afterAll(() => Promise.all([...serving].map((s) => s.stop("SIGTERM"))));

/**
 * `npm start` with `env` (PORT, SVC_DATA_DIR, DATABASE_URL, …), in a process group of its own so that
 * it can be stopped whole, as the OOM killer or Ctrl-C would; stopped when the test file is done.
 */
export function serve(env: NodeJS.ProcessEnv): Serving {
  // As from a shell: the test runner's NODE_ENV (test) would reach the app.
  const shell: Record<string, string | undefined> = { ...env };
  delete shell.NODE_ENV;
  const child = spawn(process.execPath, [...CLI, "serve"], {
    env: shell as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const handle: Serving = {
    process: child,
    output: () => output.join(""),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-(child.pid as number), signal);
        } catch {
          // already gone
        }
        await exited;
      }
      serving.delete(handle);
    },
  };
  serving.add(handle);
  return handle;
}

/** Waits until `baseUrl` answers /api/health; fails when the process exits first or within the bound. */
export async function untilHealthy(started: Serving, baseUrl: string, boundMs = 120_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (started.process.exitCode !== null)
      throw new Error(`npm start exited with ${started.process.exitCode}: ${started.output()}`);
    if (
      await fetch(`${baseUrl}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`npm start did not come up: ${started.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
