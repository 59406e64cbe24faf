import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { freePort } from "@/server/free-port";
import { ADMIN_URL } from "./postgres";

// A real PgBouncer (the system's `pgbouncer`) in front of the tests' PostgreSQL, as a fleet of
// replicas puts one in front of its database: transaction pooling, every other setting its default
// (so it refuses startup parameters it does not know, and keeps no session state between
// transactions). On a free port of 127.0.0.1, for one test file; stopped when the file is done.
// Any database of the server is reached through it by name.

export interface Pooler {
  port: number;
  /** `url` (a database of the tests' server) with its address replaced by the pooler's. */
  pooled(url: string): string;
  /** What PgBouncer logged. */
  logs(): string;
  stop(): Promise<void>;
}

const START_BOUND_MS = 10_000;
// Debian installs it outside the PATH of users other than root.
const SBIN_PGBOUNCER = "/usr/sbin/pgbouncer";

/** `stopAfterTests: false` outside a test file (a bench), which then stops it itself. */
export async function startPgBouncer(server = ADMIN_URL, { stopAfterTests = true } = {}): Promise<Pooler> {
  const { hostname, port: serverPort, username } = new URL(server);
  const dir = await mkdtemp(path.join(tmpdir(), "svc-pgbouncer-"));
  const port = await freePort();
  const user = decodeURIComponent(username || "postgres");
  await writeFile(path.join(dir, "users.txt"), `"${user}" ""\n`);
  await writeFile(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${hostname} port=${serverPort || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      // The tests' server trusts local connections; the pooler passes the user on.
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
    ].join("\n") + "\n",
  );
  // PgBouncer will not run as root: there it runs as the PostgreSQL system user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chown(dir, ...(await systemUser("postgres")));
  const output: string[] = [];
  const child: ChildProcess = spawn(
    existsSync(SBIN_PGBOUNCER) ? SBIN_PGBOUNCER : "pgbouncer",
    [...(asRoot ? ["-u", "postgres"] : []), "pgbouncer.ini"],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  if (stopAfterTests) afterAll(stop);
  const deadline = Date.now() + START_BOUND_MS;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${output.join("")}`);
    if (Date.now() > deadline) throw new Error(`pgbouncer did not start: ${output.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    pooled(url) {
      const pooled = new URL(url);
      pooled.hostname = "127.0.0.1";
      pooled.port = String(port);
      return pooled.toString();
    },
    logs: () => output.join(""),
    stop,
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

async function systemUser(name: string): Promise<[number, number]> {
  const { readFile } = await import("node:fs/promises");
  const line = (await readFile("/etc/passwd", "utf8")).split("\n").find((l) => l.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) throw new Error(`No system user ${name} to run pgbouncer as.`);
  return [Number(uid), Number(gid)];
}
