import "server-only";
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { dumpPglite, serveDumps, type DumpControl, type DumpOptions } from "./embedded-dump";
import { markerPath } from "./embedded-marker";
import { exchangeAware } from "./embedded-session";

// The zero-setup database: PGlite (PostgreSQL compiled to WebAssembly) kept in the data folder and
// served on a Unix socket, so the app reaches it with the same driver, migrations and queries as a
// real server, and only the app's OS user can connect (PGlite has no password). One process holds
// the folder; other commands connect to the address it records in `embedded.json`.
// See docs/decisions/005-embedded-database.md.

const EMBEDDED_MAX_CONNECTIONS = 24;

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
  /** The Unix socket where the process answers dump requests, and the token they carry (embedded-dump.ts). */
  dumps?: { socket: string; token: string };
}

/** The embedded database cannot start safely; the message says what to do. */
class EmbeddedSetupError extends Error {}

const ADDRESS_CHECK_MS = 1_000;
/** node-postgres finds a server's socket as `<folder>/.s.PGSQL.<port>`. */
const SOCKET_PORT = 5432;
const SOCKET_NAME = `.s.PGSQL.${SOCKET_PORT}`;
const DUMP_SOCKET_NAME = "dump.sock";
/** A Unix socket's path: 108 bytes with its terminating NUL on Linux (104 on macOS). */
const MAX_SOCKET_PATH_BYTES = process.platform === "linux" ? 107 : 103;

/** The connection string of a server whose socket is `<folder>/.s.PGSQL.5432`. */
const socketUrl = (folder: string) =>
  `postgresql://postgres@localhost:${SOCKET_PORT}/postgres?host=${encodeURIComponent(folder)}`;

/** Where a connection string leads: a Unix socket (`?host=/folder`, as node-postgres reads it) or host:port. */
function addressOf(url: string): net.NetConnectOpts {
  const parsed = new URL(url);
  const port = Number(parsed.port || SOCKET_PORT);
  const folder = parsed.searchParams.get("host");
  if (folder?.startsWith("/")) return { path: path.join(folder, `.s.PGSQL.${port}`) };
  return { host: parsed.hostname, port };
}

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

function answers(address: net.NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ ...address, timeout: ADDRESS_CHECK_MS });
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
    const { dumps } = JSON.parse(await readFile(markerPath(dataDir), "utf8")) as Marker;
    return typeof dumps?.socket === "string" ? dumps : undefined;
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
  if (marker.pid === process.pid || !(await writerAlive(marker))) return undefined;
  try {
    if (!(await answers(addressOf(marker.url)))) return undefined;
  } catch {
    return undefined; // not a connection string
  }
  return marker.url;
}

const uid = () => process.getuid?.();

/** Fails unless `folder` (not followed when a symlink) is a folder of this user's. */
async function ownFolder(folder: string, what: string): Promise<void> {
  const info = await lstat(folder);
  if (info.isSymbolicLink() || !info.isDirectory())
    throw new EmbeddedSetupError(`${what} ${folder} is not a folder (a symlink or a file is there): remove it.`);
  if (uid() !== undefined && info.uid !== uid())
    throw new EmbeddedSetupError(
      `${what} ${folder} belongs to another user (uid ${info.uid}): remove it, or run the app as its owner.`,
    );
}

/**
 * Narrows everything under `dir` to its owner: folders 0700, files 0600 (a folder made by an older
 * version, or under umask 0, had them readable by all; PGlite sets some modes itself, 0666 when it
 * makes a new database and 0644 for files it rewrites as it opens one). Anything there another user
 * owns stops the start: that user could have read or changed the database.
 */
async function narrow(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const info = await lstat(file);
    if (uid() !== undefined && info.uid !== uid())
      throw new EmbeddedSetupError(
        `${file} in the data folder belongs to another user (uid ${info.uid}): the folder was open to others; check it, then chown it to this user.`,
      );
    if (info.isSymbolicLink()) continue; // chmod would change its target
    if (info.isDirectory()) {
      if ((info.mode & 0o777) !== 0o700) await chmod(file, 0o700);
      await narrow(file);
    } else if (info.isFile() && (info.mode & 0o777) !== 0o600) await chmod(file, 0o600);
  }
}

/** The data folder made, or kept, owner-only: itself 0700 and its contents narrowed. */
async function secureDataFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const top = await stat(dir); // the data folder itself may be a symlink the operator made
  if (!top.isDirectory()) throw new EmbeddedSetupError(`The data folder ${dir} is not a folder.`);
  if (uid() !== undefined && top.uid !== uid())
    throw new EmbeddedSetupError(
      `The data folder ${dir} belongs to another user (uid ${top.uid}): run the app as its owner.`,
    );
  await chmod(dir, 0o700);
  // Walked after the folder is 0700: no other user can add to it meanwhile.
  await narrow(dir);
}

/**
 * The folder of the sockets, 0700 and this user's: `socket` in the data folder, or, when that path
 * is too long for a socket, a new one under the system's temporary folder (removed at the stop).
 * A socket left there by a process killed outright is removed; one that answers stops the start.
 */
async function socketFolder(dir: string): Promise<{ folder: string; temporary: boolean }> {
  let folder = path.join(dir, "socket");
  let temporary = false;
  const fits = (f: string) => Buffer.byteLength(path.join(f, SOCKET_NAME)) <= MAX_SOCKET_PATH_BYTES;
  if (fits(folder)) {
    try {
      await mkdir(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    await ownFolder(folder, "The socket folder");
    await chmod(folder, 0o700);
  } else {
    folder = await mkdtemp(path.join(os.tmpdir(), "svc-db-")); // 0700, a new name
    temporary = true;
    if (!fits(folder)) {
      await rm(folder, { recursive: true, force: true });
      throw new EmbeddedSetupError(
        `The embedded database's socket path is too long (over ${MAX_SOCKET_PATH_BYTES} bytes) in the data folder and in the temporary folder: set SVC_DATA_DIR or TMPDIR to a shorter path.`,
      );
    }
  }
  for (const name of [SOCKET_NAME, DUMP_SOCKET_NAME]) {
    const socket = path.join(folder, name);
    if (await answers({ path: socket }))
      throw new EmbeddedSetupError(`Another process serves the embedded database at ${socket}: stop it first.`);
    await unlink(socket).catch(() => undefined);
  }
  return { folder, temporary };
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir);
  // Files PGlite creates as it serves follow the umask: owner-only from here on, in this process
  // and the processes it starts.
  process.umask(0o077);
  await secureDataFolder(dir);
  const { folder, temporary } = await socketFolder(dir);
  const removeTemporary = async () => {
    if (temporary) await rm(folder, { recursive: true, force: true });
  };
  // The extensions the migrations create must be loaded with the database (trigram search).
  const db = await PGlite.create(path.join(dir, "pglite"), { extensions: { pg_trgm } }).catch(
    async (error: unknown) => {
      await removeTemporary();
      throw error;
    },
  );
  const served = exchangeAware(db);
  const server = new PGLiteSocketServer({
    db: served,
    path: path.join(folder, SOCKET_NAME),
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  const busy = () => served.isInTransaction();
  let dumps: DumpControl | undefined;
  const url = socketUrl(folder);
  try {
    await narrow(dir);
    await server.start();
    dumps = await serveDumps(db, busy, path.join(folder, DUMP_SOCKET_NAME));
    const startTime = (await processStatus(process.pid))?.startTime;
    const marker: Marker = { url, pid: process.pid, startTime, dumps: { socket: dumps.socket, token: dumps.token } };
    // Made afresh, so that its mode (owner only: it holds the dump token) is this one.
    await rm(markerPath(dir), { force: true });
    await writeFile(markerPath(dir), JSON.stringify(marker), { mode: 0o600, flag: "wx" });
  } catch (error) {
    await dumps?.close();
    await server.stop();
    await db.close();
    await removeTemporary();
    throw error;
  }
  const control = dumps;
  let stopped = false;
  return {
    url,
    dump: (options) => dumpPglite(db, options, busy),
    async stop() {
      if (stopped) return;
      stopped = true;
      await control.close();
      await server.stop();
      await db.close();
      await rm(markerPath(dir), { force: true });
      await narrow(dir);
      await removeTemporary();
    },
  };
}
