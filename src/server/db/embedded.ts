import "server-only";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { freePort } from "@/server/free-port";
import { dumpPglite, serveDumps, type DumpOptions } from "./embedded-dump";
import { markerPath } from "./embedded-marker";
import { exchangeAware } from "./embedded-session";

// The zero-setup database: PGlite (PostgreSQL compiled to WebAssembly) persisted in the project's
// data folder and served on a loopback port, so the app reaches it through the same node-postgres
// driver, migrations and queries as a real server. PGlite allows one process per data folder:
// the process that starts it records its address in `embedded.json`, and other commands (the CLI
// while the app runs) connect to that address instead of opening the folder a second time. A
// process killed outright leaves its marker behind: a marker is believed only while its process is
// alive (not a zombie awaiting its reaper), is the one that wrote it (not another process that
// reuses its PID) and its address answers.

export const EMBEDDED_MAX_CONNECTIONS = 24;

export interface EmbeddedDatabase {
  url: string;
  /** A consistent plain-SQL dump, taken in this process. */
  dump(options?: DumpOptions): Promise<string>;
  stop(): Promise<void>;
}

interface Marker {
  url: string;
  pid: number;
  /** When the process started, in clock ticks since boot (Linux), to tell a reused PID apart. */
  startTime?: number;
  /** Where the process answers dump requests, and the token they carry (embedded-dump.ts). */
  dumps?: { url: string; token: string };
}

const ADDRESS_CHECK_MS = 1_000;

/**
 * A process's state and start time from /proc (Linux); undefined where there is no /proc or no
 * such process.
 */
export async function processStatus(pid: number): Promise<{ state: string; startTime: number } | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is the 3rd field, starttime the 22nd.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", startTime: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

/** Whether the marker's process is alive and is the one that wrote the marker. */
async function writerAlive(marker: Marker): Promise<boolean> {
  try {
    process.kill(marker.pid, 0);
  } catch {
    return false; // gone, or another user's process
  }
  const status = await processStatus(marker.pid);
  if (!status) return true; // no /proc here: the signal is all there is to go by
  if (status.state === "Z" || status.state === "X") return false;
  return marker.startTime === undefined || marker.startTime === status.startTime;
}

function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), timeout: ADDRESS_CHECK_MS });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/** Where the live process serving the embedded database answers dump requests, if it does. */
export async function embeddedDumps(dataDir: string): Promise<Marker["dumps"]> {
  if (!(await runningEmbedded(dataDir))) return undefined;
  try {
    return (JSON.parse(await readFile(markerPath(dataDir), "utf8")) as Marker).dumps;
  } catch {
    return undefined;
  }
}

/** The address of an embedded database another live process of this project is serving. */
export async function runningEmbedded(dataDir: string): Promise<string | undefined> {
  let marker: Marker;
  try {
    marker = JSON.parse(await readFile(markerPath(dataDir), "utf8")) as Marker;
  } catch {
    return undefined;
  }
  if (marker.pid === process.pid || !(await writerAlive(marker)) || !(await answers(marker.url))) return undefined;
  return marker.url;
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir);
  await mkdir(dir, { recursive: true });
  // The extensions the migrations create must be loaded with the database (trigram search).
  const db = await PGlite.create(path.join(dir, "pglite"), { extensions: { pg_trgm } });
  const port = await freePort();
  const served = exchangeAware(db);
  const server = new PGLiteSocketServer({
    db: served,
    host: "127.0.0.1",
    port,
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  await server.start();
  const busy = () => served.isInTransaction();
  const dumps = await serveDumps(db, busy);
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const startTime = (await processStatus(process.pid))?.startTime;
  const marker: Marker = { url, pid: process.pid, startTime, dumps: { url: dumps.url, token: dumps.token } };
  // Made afresh, so that its mode (owner only: it holds the dump token) is this one.
  await rm(markerPath(dir), { force: true });
  await writeFile(markerPath(dir), JSON.stringify(marker), { mode: 0o600 });
  let stopped = false;
  return {
    url,
    dump: (options) => dumpPglite(db, options, busy),
    async stop() {
      if (stopped) return;
      stopped = true;
      await dumps.close();
      await server.stop();
      await db.close();
      await rm(markerPath(dir), { force: true });
    },
  };
}
