import net from "node:net";
import { afterAll } from "vitest";

// A stand-in for a PostgreSQL server older than the app supports (13 by default), on a free port of
// 127.0.0.1: it accepts any startup without a password and answers every simple query with one row,
// one column, holding the version number (what `current_setting('server_version_num')` answers).
// Enough for a client to connect and be refused for the version; nothing else works.

const message = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const cstring = (s: string) => Buffer.from(`${s}\0`);

function answer(version: string): Buffer {
  const value = Buffer.from(version);
  const rowDescription = Buffer.concat([
    int16(1),
    cstring("v"),
    int32(0),
    int16(0),
    int32(25),
    int16(-1),
    int32(-1),
    int16(0),
  ]);
  return Buffer.concat([
    message("T", rowDescription),
    message("D", Buffer.concat([int16(1), int32(value.length), value])),
    message("C", cstring("SELECT 1")),
    message("Z", Buffer.from("I")),
  ]);
}

/** Starts the stand-in; answers its connection string. Closed when the test file is done. */
export async function startOldPostgres(versionNum = "130011"): Promise<string> {
  const server = net.createServer((socket) => {
    let started = false;
    let pending = Buffer.alloc(0);
    socket.on("error", () => undefined);
    socket.on("data", (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code === 80877103) {
            socket.write("N"); // no TLS
            continue;
          }
          started = true;
          socket.write(
            Buffer.concat([
              message("R", int32(0)),
              message("S", Buffer.concat([cstring("server_version"), cstring("13.11")])),
              message("K", Buffer.concat([int32(1), int32(1)])),
              message("Z", Buffer.from("I")),
            ]),
          );
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const type = String.fromCharCode(pending[0] ?? 0);
        pending = pending.subarray(1 + length);
        if (type === "X") return void socket.end();
        if (type === "Q") socket.write(answer(versionNum));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as net.AddressInfo;
  return `postgresql://postgres@127.0.0.1:${port}/postgres`;
}
