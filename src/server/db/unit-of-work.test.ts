import { describe, expect, it } from "vitest";
import { testDatabase } from "@/test/database";
import { createOrg } from "@/test/fixtures";
import { dataLayer } from "./data-layer";
import { inOneTransaction } from "./unit-of-work";

// One unit of work is one transaction: what the data layer writes inside it, through a service's
// own $transaction or raw SQL too, commits or rolls back as one.

// The file's DATABASE_URL is its own database: the process-wide client the data layer uses is on it.
const { client } = await testDatabase();

describe("a unit of work", () => {
  it("sends every statement of the data layer through one transaction, joined by nested $transaction", async () => {
    const org = await createOrg(client);
    const xids = await inOneTransaction(async () => {
      const db = dataLayer("test");
      const seen: number[] = [];
      await db.organization.update({ where: { id: org.id }, data: { name: "renamed-in-uow" } });
      seen.push((await db.$queryRaw<{ xid: number }[]>`SELECT txid_current()::int AS xid`)[0]!.xid);
      seen.push(((await db.$queryRawUnsafe("SELECT txid_current()::int AS xid")) as { xid: number }[])[0]!.xid);
      await db.$transaction(async (tx) => {
        seen.push((await tx.$queryRaw<{ xid: number }[]>`SELECT txid_current()::int AS xid`)[0]!.xid);
        await tx.organization.update({ where: { id: org.id }, data: { description: "inner" } });
      });
      await db.$transaction([db.organization.findUnique({ where: { id: org.id } })]);
      return seen;
    });
    expect(new Set(xids).size).toBe(1);
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe("inner");
  });

  it("rolls back everything when the work fails", async () => {
    const org = await createOrg(client);
    const failure = await inOneTransaction(async () => {
      const db = dataLayer("test");
      await db.organization.update({ where: { id: org.id }, data: { name: "never-kept" } });
      await db.$transaction(async (tx) => tx.organization.update({ where: { id: org.id }, data: { description: "never" } }));
      throw new Error("boom");
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const row = await client.organization.findUniqueOrThrow({ where: { id: org.id } });
    expect([row.name, row.description]).toEqual([org.name, org.description]);
  });

  it("keeps the data layer's rules inside (soft-deleted rows stay out, updated_by is stamped)", async () => {
    const org = await createOrg(client);
    await client.organization.update({ where: { id: org.id }, data: { is_deleted: true } });
    const found = await inOneTransaction(() => dataLayer("test").organization.findFirst({ where: { id: org.id } }));
    expect(found).toBeNull();
    // In a service's own $transaction too.
    const nested = await inOneTransaction(() => dataLayer("test").$transaction((tx) => tx.organization.findFirst({ where: { id: org.id } })));
    expect(nested).toBeNull();
    const live = await createOrg(client);
    await inOneTransaction(() => dataLayer("someone").organization.update({ where: { id: live.id }, data: { description: "x" } }));
    expect((await client.organization.findUniqueOrThrow({ where: { id: live.id } })).updated_by).toBe("someone");
  });
});
