import { describe, expect, it } from "vitest";
import { testDatabase } from "@/test/database";
import { startTcpProxy } from "@/test/tcp-proxy";
import { createBaseClient, queryRows } from "./client";
import { mapDatabaseError } from "./errors";

// Connection-level failures, produced for real (a busy pool, a slow statement, a server that
// refuses or never answers) through Prisma and straight through the pool: each maps to
// `unavailable`, whichever layer reports it. Short timeouts, so the file stays quick.
process.env.DATABASE_CONNECT_TIMEOUT_MS = "300";
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "300";

const { url } = await testDatabase();

async function failure(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => expect.fail("expected a failure"),
    (error: unknown) => error,
  );
}
const codeOf = async (work: Promise<unknown>) => mapDatabaseError(await failure(work))?.code;

describe("mapDatabaseError on connection-level failures", () => {
  it("maps a statement over statement_timeout, through Prisma and through the pool", async () => {
    const client = createBaseClient(url, { poolMax: 2 });
    expect(await codeOf(client.$executeRaw`SELECT pg_sleep(2)`)).toBe("unavailable");
    expect(await codeOf(queryRows("SELECT pg_sleep(2)", [], client))).toBe("unavailable");
    await client.$disconnect();
  });

  it("maps a pool with no connection free", async () => {
    const client = createBaseClient(url, { poolMax: 1 });
    let release = () => {};
    const held = client.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT 1`;
      await new Promise<void>((resolve) => (release = resolve));
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(await codeOf(queryRows("SELECT 1", [], client))).toBe("unavailable");
    expect(await codeOf(client.organization.count())).toBe("unavailable");
    release();
    await held;
    await client.$disconnect();
  });

  it("maps refused and silent servers, and Prisma's transaction that cannot start", async () => {
    const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
    const proxied = new URL(url);
    proxied.host = proxy.address;
    const client = createBaseClient(proxied.toString(), { poolMax: 2 });
    await client.organization.count();
    for (const mode of ["blackhole", "refuse"] as const) {
      await proxy.setMode(mode);
      expect(await codeOf(client.organization.count()), mode).toBe("unavailable");
      expect(await codeOf(queryRows("SELECT 1", [], client)), mode).toBe("unavailable");
      expect(await codeOf(client.$transaction(async (tx) => tx.organization.count())), mode).toBe("unavailable");
    }
    await client.$disconnect().catch(() => undefined);
  });

  it("still maps a constraint violation by its name, not as unavailable", async () => {
    const client = createBaseClient(url, { poolMax: 1 });
    await client.organization.create({ data: { name: "mapped", domain: "mapped.example" } });
    const error = mapDatabaseError(await failure(client.organization.create({ data: { name: "other", domain: "mapped.example" } })));
    expect(error?.code).toBe("conflict");
    await client.$disconnect();
  });
});
