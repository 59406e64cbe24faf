import "server-only";
import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { PGlite } from "@electric-sql/pglite";
import { pgDump } from "@electric-sql/pglite-tools/pg_dump";

// `svc db dump` of the embedded database: PGlite's own pg_dump, run in the process that holds the
// database, which answers the CLI on a Unix socket beside the database's with a token from its
// owner-only marker file. The dump takes PGlite's lock when no client has a transaction or exchange
// open (embedded-session.ts), so it is consistent while the app serves; requests wait meanwhile.
// See docs/decisions/005-embedded-database.md.

export interface DumpOptions {
  /** Rows only (and sequences), for loading into a database its migrations have made. */
  dataOnly?: boolean;
  /** Tables whose rows are left out. */
  excludeTableData?: string[];
}

/** pg_dump's arguments for a dump the app can restore: plain SQL of INSERTs, no owners or grants. */
export function dumpArguments(options: DumpOptions): string[] {
  return [
    "--no-owner",
    "--no-privileges",
    "--inserts",
    "--rows-per-insert=500",
    ...(options.dataOnly ? ["--data-only", "--load-via-partition-root"] : []),
    ...(options.excludeTableData ?? []).map((table) => `--exclude-table-data=${table}`),
  ];
}

/** A simple-protocol Query message. */
function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`);
  const message = Buffer.alloc(5 + text.length);
  message.write("Q", 0);
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

/** The first column of the first DataRow in a run of backend messages ("" when there is none). */
function firstValue(answer: Buffer): string {
  for (let at = 0; at + 5 <= answer.length;) {
    const type = String.fromCharCode(answer[at] ?? 0);
    const length = answer.readInt32BE(at + 1);
    if (type === "D" && answer.readInt16BE(at + 5) > 0) {
      const size = answer.readInt32BE(at + 7);
      return size < 0 ? "" : answer.toString("utf8", at + 11, at + 11 + size);
    }
    at += 1 + length;
  }
  return "";
}

const OPEN_TRANSACTION_POLL_MS = 5;

export async function dumpPglite(
  db: PGlite,
  options: DumpOptions = {},
  busy: () => boolean = () => db.isInTransaction(),
): Promise<string> {
  // Inside the lock PGlite's own query() would wait for it: the dump's few statements of its own
  // go through the raw protocol (which takes no lock), as pg_dump's do, their answers collected here.
  const run = async (sql: string): Promise<Buffer> => {
    const chunks: Uint8Array[] = [];
    await db.execProtocolRawStream(simpleQuery(sql), { onRawData: (bytes) => chunks.push(bytes.slice()) });
    return Buffer.concat(chunks);
  };
  const unlocked = {
    async query(sql: string) {
      return { rows: [{ search_path: firstValue(await run(sql)) }] };
    },
    // pg_dump ends its session without ending its transaction (here the session is shared): it is
    // ended before the wrapper puts the search_path back, or the rollback would undo that too.
    async exec(sql: string) {
      if (db.isInTransaction()) await run("ROLLBACK");
      return run(sql);
    },
    execProtocolRawStream: db.execProtocolRawStream.bind(db),
  } as unknown as PGlite;
  for (;;) {
    const dump = await db.runExclusive(async () => {
      if (busy()) return undefined;
      try {
        const file = await pgDump({ pg: unlocked, args: dumpArguments(options) });
        return await file.text();
      } finally {
        if (db.isInTransaction()) await run("ROLLBACK");
      }
    });
    if (dump !== undefined) return dump;
    await new Promise((resolve) => setTimeout(resolve, OPEN_TRANSACTION_POLL_MS));
  }
}

export interface DumpControl {
  /** The Unix socket's path. */
  socket: string;
  token: string;
  close(): Promise<void>;
}

/** Answers POST /dump (JSON DumpOptions, bearer token) with the dump, on the Unix socket `socket`. */
export async function serveDumps(db: PGlite, busy: () => boolean, socket: string): Promise<DumpControl> {
  const token = randomBytes(24).toString("base64url");
  const expected = Buffer.from(`Bearer ${token}`);
  const server = http.createServer((req, res) => {
    const given = Buffer.from(req.headers.authorization ?? "");
    if (
      req.method !== "POST" ||
      req.url !== "/dump" ||
      given.length !== expected.length ||
      !timingSafeEqual(given, expected)
    ) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let options: DumpOptions;
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString() || "{}") as DumpOptions;
        options = {
          dataOnly: parsed.dataOnly === true,
          excludeTableData: (parsed.excludeTableData ?? []).filter((t) => /^[a-z_][a-z0-9_]*$/.test(t)),
        };
      } catch {
        res.writeHead(400).end();
        return;
      }
      dumpPglite(db, options, busy).then(
        (dump) => res.writeHead(200, { "content-type": "application/sql; charset=utf-8" }).end(dump),
        (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(error.message.split("\n")[0]),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    socket,
    token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Asks the process serving the embedded database for a dump. */
export function requestDump(control: { socket: string; token: string }, options: DumpOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath: control.socket,
        path: "/dump",
        method: "POST",
        headers: { authorization: `Bearer ${control.token}`, "content-type": "application/json" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (response.statusCode === 200) resolve(text);
          else
            reject(
              new Error(`The app serving the embedded database could not dump it: ${text || response.statusCode}`),
            );
        });
      },
    );
    request.on("error", (error) =>
      reject(new Error(`The app serving the embedded database did not answer a dump request: ${error.message}`)),
    );
    request.end(JSON.stringify(options));
  });
}
