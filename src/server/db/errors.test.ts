import { describe, expect, it } from "vitest";
import { testDatabase } from "@/test/database";
import { proxiedClient } from "@/test/tcp-proxy";
import { createBaseClient, queryRows } from "./client";
import { mapDatabaseError } from "./errors";

// Connection-level failures, produced for real (a busy pool, a slow statement, a transaction past
// its timeout, a server that refuses, never answers or ends the connection) through Prisma
// and straight through the pool: each maps to `unavailable`, whichever layer reports it, and each
// test names what that layer actually reports. Short timeouts, so the file stays quick.
process.env.DATABASE_CONNECT_TIMEOUT_MS = "300";
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "300";

const { url } = await testDatabase();

/** How a failure shows itself: its code (Prisma's, SQLSTATE or the socket's), the SQLSTATE under a Prisma error, its message, and the domain code it maps to. */
async function failure(work: PromiseLike<unknown>) {
  const error = await Promise.resolve(work).then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e,
  );
  const e = error as {
    code?: unknown;
    message?: unknown;
    meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } };
  };
  return {
    code: e.code,
    sqlState: e.meta?.driverAdapterError?.cause?.originalCode,
    message: String(e.message),
    mapped: mapDatabaseError(error)?.code,
  };
}

describe("mapDatabaseError on connection-level failures", () => {
  it("maps a statement over statement_timeout (57014), through Prisma and through the pool", async () => {
    const client = createBaseClient(url, { poolMax: 2 });
    expect(await failure(client.$executeRaw`SELECT pg_sleep(2)`)).toMatchObject({
      code: "P2010",
      sqlState: "57014",
      mapped: "unavailable",
    });
    expect(await failure(queryRows("SELECT pg_sleep(2)", [], client))).toMatchObject({
      code: "57014",
      mapped: "unavailable",
    });
    await client.$disconnect();
  });

  it("maps a pool with no connection free", async () => {
    // The pool is node-postgres's, behind Prisma's driver adapter: its wait for a connection ends in
    // an error of its own, with no code, through Prisma too (Prisma's P2024 belongs to the pool of
    // its query engine, which a driver adapter replaces).
    const client = createBaseClient(url, { poolMax: 1 });
    let release = () => {};
    let holding = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    const transaction = client.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT 1`;
      holding();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await held;
    const timedOut = { code: undefined, message: "timeout exceeded when trying to connect", mapped: "unavailable" };
    expect(await failure(queryRows("SELECT 1", [], client))).toMatchObject(timedOut);
    expect(await failure(client.organization.count())).toMatchObject(timedOut);
    expect(await failure(client.$transaction(async (tx) => tx.organization.count()))).toMatchObject(timedOut);
    release();
    await transaction;
    await client.$disconnect();
  });

  it("maps an interactive transaction that outlives its timeout (P2028)", async () => {
    const client = createBaseClient(url, { poolMax: 1 });
    const slow = client.$transaction(async (tx) => tx.$executeRaw`SELECT pg_sleep(0.2)`, { timeout: 100 });
    expect(await failure(slow)).toMatchObject({ code: "P2028", mapped: "unavailable" });
    await client.$disconnect();
  });

  it("maps a transaction's statement that gets no answer in time, and closes its connection", async () => {
    const client = createBaseClient(url, { poolMax: 1 });
    const backend = async () => (await client.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
    const before = await backend();
    // The server's own timeout lifted in this transaction: only the client's wait runs out.
    const unanswered = client.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL statement_timeout = 0`;
      await tx.$executeRaw`SELECT pg_sleep(10)`;
    });
    expect(await failure(unanswered)).toMatchObject({ message: "Query read timeout", mapped: "unavailable" });
    // The pool's one connection, which still waits for that answer, is not handed out again.
    expect(await backend()).not.toBe(before);
    await client.$disconnect();
  });

  it("maps refused and silent servers, and Prisma's transaction that cannot start", async () => {
    const { proxy, client } = await proxiedClient(url);
    await client.organization.count();
    // Silent: the statement on the connection already open waits out the query timeout; the
    // next ones wait out the connect timeout on new connections.
    await proxy.setMode("blackhole");
    expect(await failure(client.organization.count())).toMatchObject({
      code: undefined,
      message: "Query read timeout",
      mapped: "unavailable",
    });
    const connectTimedOut = {
      code: undefined,
      message: "Connection terminated due to connection timeout",
      mapped: "unavailable",
    };
    expect(await failure(queryRows("SELECT 1", [], client))).toMatchObject(connectTimedOut);
    expect(await failure(client.$transaction(async (tx) => tx.organization.count()))).toMatchObject(connectTimedOut);
    await proxy.setMode("refuse");
    expect(await failure(client.organization.count())).toMatchObject({ code: "P1001", mapped: "unavailable" });
    expect(await failure(queryRows("SELECT 1", [], client))).toMatchObject({
      code: "ECONNREFUSED",
      mapped: "unavailable",
    });
    expect(await failure(client.$transaction(async (tx) => tx.organization.count()))).toMatchObject({
      code: "P1001",
      mapped: "unavailable",
    });
    await client.$disconnect().catch(() => undefined);
  });

  it("still maps a constraint violation by its name, not as unavailable", async () => {
    const client = createBaseClient(url, { poolMax: 1 });
    await client.organization.create({ data: { name: "mapped", domain: "mapped.example" } });
    expect(
      await failure(client.organization.create({ data: { name: "other", domain: "mapped.example" } })),
    ).toMatchObject({ code: "P2002", mapped: "conflict" });
    await client.$disconnect();
  });
});
