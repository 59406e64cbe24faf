import "server-only";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

// The zero-setup database: PGlite (PostgreSQL compiled to WebAssembly) persisted in the project's
// data folder and served on a loopback port, so the app reaches it through the same node-postgres
// driver, migrations and queries as a real server. PGlite allows one process per data folder:
// the process that starts it records its address in `embedded.json`, and other commands (the CLI
// while the app runs) connect to that address instead of opening the folder a second time.

export const EMBEDDED_MAX_CONNECTIONS = 24;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Marker {
  url: string;
  pid: number;
}

const markerPath = (dataDir: string) => path.join(dataDir, "embedded.json");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The address of an embedded database another live process of this project is serving. */
export async function runningEmbedded(dataDir: string): Promise<string | undefined> {
  try {
    const marker = JSON.parse(await readFile(markerPath(dataDir), "utf8")) as Marker;
    return marker.pid !== process.pid && alive(marker.pid) ? marker.url : undefined;
  } catch {
    return undefined;
  }
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(path.join(dir, "pglite"));
  const port = await freePort();
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port,
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  await server.start();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  await writeFile(markerPath(dir), JSON.stringify({ url, pid: process.pid } satisfies Marker));
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
      await rm(markerPath(dir), { force: true });
    },
  };
}
