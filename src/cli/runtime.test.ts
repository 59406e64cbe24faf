import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/free-port";
import { PROCESS_TEST_TIMEOUT_MS } from "@/test/app";

// The README's command, `npm start`, run as a person runs it: from a shell whose PATH knows only
// the machine's own Node.js and npm (whatever version they are), not the project's. The server it
// starts must run on the Node.js the project pins (node_modules/.bin/node), at least 24.

const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-runtime-"));
const port = await freePort();
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    process.kill(-(child.pid as number), "SIGTERM");
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

/** PATH without what npm or a test runner put in front of it (every node_modules folder). */
function machinePath(): string {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && !dir.split(path.sep).includes("node_modules"))
    .join(path.delimiter);
}

/** The server's Node.js, as its own metrics report it (`svc_nodejs_version_info`). */
async function serverRuntime(baseUrl: string): Promise<{ version: string; major: number }> {
  const metrics = await (await fetch(`${baseUrl}/api/metrics`)).text();
  const line = metrics.split("\n").find((l) => l.startsWith("svc_nodejs_version_info{"));
  const version = /version="v([^"]+)"/.exec(line ?? "")?.[1];
  if (!version) throw new Error(`No svc_nodejs_version_info in the metrics:\n${metrics.slice(0, 500)}`);
  return { version, major: Number(version.split(".")[0]) };
}

describe("npm start, from a shell with only the machine's Node.js on PATH", () => {
  it(
    "serves the app on Node.js 24 or later",
    async () => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PATH: machinePath(),
        SVC_DATA_DIR: dataDir,
        PORT: String(port),
        SVC_ADMIN_PASSWORD: "runtime-test-password-123",
        LOG_LEVEL: "warn",
      };
      for (const name of ["DATABASE_URL", "REDIS_URL", "SVC_METRICS_TOKEN"]) delete env[name];
      // npm passes its own settings on to the scripts it runs: none of the parent's may steer this one.
      for (const name of Object.keys(env)) if (name.startsWith("npm_")) delete env[name];
      let output = "";
      child = spawn("npm", ["start"], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr?.on("data", (d: Buffer) => (output += d.toString()));

      const baseUrl = `http://127.0.0.1:${port}`;
      for (let up = false; !up;) {
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
        up = await fetch(`${baseUrl}/api/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (!up) await new Promise((r) => setTimeout(r, 200));
      }

      const { version, major } = await serverRuntime(baseUrl);
      expect(major, `the server runs on Node.js ${version}`).toBeGreaterThanOrEqual(24);
      // npm start says which runtime serves.
      expect(output).toContain(`(Node.js ${version})`);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
