import net from "node:net";
import { afterAll } from "vitest";

// A TCP forwarder on 127.0.0.1 between an app and PostgreSQL that notes, for each connection the
// app closes (not the server), whether it said goodbye first (PostgreSQL's Terminate message) or
// just dropped the socket, as a process does that exits with a connection still open. It counts the app's
// connections alone, where the server's statistics count every client of the database.

/** PostgreSQL's Terminate message: 'X' and its length, 4. */
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
/** The start of ReadyForQuery ('Z', length 5): the session is established. */
const READY = Buffer.from([0x5a, 0, 0, 0, 5]);

export interface GoodbyeRecorder {
  /** The database's connection string, through the forwarder. */
  url: string;
  /** Sessions the app closed without a goodbye, each named by the first statement it sent. */
  dropped(): string[];
  close(): Promise<void>;
}

/** A forwarder to the database at `databaseUrl`, whose connection string through it is `url`. */
export async function recordGoodbyes(databaseUrl: string): Promise<GoodbyeRecorder> {
  const target = new URL(databaseUrl);
  const dropped: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((app) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(app).add(upstream);
    let tail = Buffer.alloc(0);
    let sent = "";
    let established = false;
    let serverClosed = false;
    app.on("data", (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]).subarray(-TERMINATE.length);
      if (sent.length < 4_096) sent += chunk.toString("latin1");
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      established ||= chunk.includes(READY);
      app.write(chunk);
    });
    let ended = false;
    const appGone = () => {
      if (ended) return;
      ended = true;
      if (established && !serverClosed && !tail.equals(TERMINATE))
        dropped.push(/(SELECT|INSERT|UPDATE|DELETE|WITH|LISTEN|BEGIN|SET|CREATE)\b[^\0]{0,80}/.exec(sent)?.[0] ?? "?");
      upstream.end();
    };
    app.on("end", appGone);
    app.on("close", appGone);
    app.on("error", () => app.destroy());
    upstream.on("end", () => {
      serverClosed ||= !ended;
      app.end();
    });
    upstream.on("error", () => app.destroy());
    for (const socket of [app, upstream]) socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const through = new URL(databaseUrl);
  through.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const recorder: GoodbyeRecorder = {
    url: through.toString(),
    dropped: () => [...dropped],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  afterAll(() => recorder.close());
  return recorder;
}
