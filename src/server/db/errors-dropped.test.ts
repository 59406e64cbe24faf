import { describe, expect, it, vi } from "vitest";
import { testDatabase } from "@/test/database";
import { proxiedClient } from "@/test/tcp-proxy";
import { createBaseClient, queryRows } from "./client";
import { mapDatabaseError } from "./errors";

// A statement whose connection is dropped under it — the server terminates it (57P01), or the
// network resets it — through Prisma and straight through the pool. Apart from errors.test.ts, whose
// short timeouts (made for the failures it provokes) would here fail the test for the wrong reason on
// a busy machine: a new connection that takes over 300 ms to open, or a statement that times out
// before the drop comes. Here both bounds are generous; only the drop ends the statement.
process.env.DATABASE_CONNECT_TIMEOUT_MS = "30000";
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "60000";

const { client: admin, url } = await testDatabase();

/** How a failure shows itself: its code (Prisma's or SQLSTATE), the SQLSTATE under a Prisma error, and the domain code it maps to. */
async function failure(work: PromiseLike<unknown>) {
  const error = await Promise.resolve(work).then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e,
  );
  const e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  return {
    code: e.code,
    sqlState: e.meta?.driverAdapterError?.cause?.originalCode,
    mapped: mapDatabaseError(error)?.code,
  };
}

describe("mapDatabaseError on a connection dropped under a statement", () => {
  it("maps a statement whose connection the server terminates (57P01)", async () => {
    const victim = new URL(url);
    const name = "svc-errors-test-terminated";
    victim.searchParams.set("application_name", name);
    const client = createBaseClient(victim.toString(), { poolMax: 1 });
    /** `work` (a long sleep) on the one connection, ended by the server mid-statement once it is seen running. */
    const terminatedUnder = async (work: () => PromiseLike<unknown>) => {
      const failed = failure(work());
      await vi.waitFor(
        async () => {
          const [row] = await admin.$queryRaw<{ n: bigint }[]>`
            SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ${name} AND query LIKE '%pg_sleep%' AND state = 'active'`;
          expect(Number(row?.n)).toBe(1);
        },
        { timeout: 30_000, interval: 50 },
      );
      await admin.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${name}`;
      return failed;
    };
    expect(await terminatedUnder(() => client.$executeRaw`SELECT pg_sleep(30)`)).toMatchObject({
      code: "P2010",
      sqlState: "57P01",
      mapped: "unavailable",
    });
    expect(await terminatedUnder(() => queryRows("SELECT pg_sleep(30)", [], client))).toMatchObject({
      code: "57P01",
      mapped: "unavailable",
    });
    await client.$disconnect();
  }, 120_000);

  it("maps a connection reset under a statement in flight", async () => {
    const { proxy, client } = await proxiedClient(url);
    /** `work` on the open connection, held in a black hole with its statement sent, then reset. */
    const resetUnder = async (work: () => PromiseLike<unknown>) => {
      await client.organization.count();
      await proxy.setMode("blackhole");
      const failed = failure(work());
      await vi.waitFor(() => expect(proxy.swallowing()).toBe(1));
      proxy.reset();
      await proxy.setMode("forward");
      return failed;
    };
    expect(await resetUnder(() => client.organization.count())).toMatchObject({ code: "P1017", mapped: "unavailable" });
    expect(await resetUnder(() => queryRows("SELECT 1", [], client))).toMatchObject({
      code: "ECONNRESET",
      mapped: "unavailable",
    });
    await client.$disconnect();
  });
});
