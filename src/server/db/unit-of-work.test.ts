import { afterAll, describe, expect, it } from "vitest";
import { createBaseClient } from "./client";
import { testDatabase } from "@/test/database";
import { createOrg } from "@/test/fixtures";
import { inUnitOfWork } from "./unit-of-work";

// One unit of work is one transaction: what its data layers write, through a service's own
// $transaction or raw SQL too, commits or rolls back as one.

// The file's DATABASE_URL is its own database: the process-wide client a unit opens on is on it.
const { client, url } = await testDatabase();
const another = createBaseClient(url, { poolMax: 2 });
afterAll(() => another.$disconnect());

describe("a unit of work", () => {
  it("sends every statement of its data layer through one transaction, joined by nested $transaction", async () => {
    const org = await createOrg(client);
    const xids = await inUnitOfWork(async (unit) => {
      const db = unit.dataLayer("test");
      const seen: number[] = [];
      await db.organization.update({ where: { id: org.id }, data: { name: "renamed-in-uow" } });
      seen.push((await db.$queryRaw<{ xid: number }[]>`SELECT txid_current()::int AS xid`)[0]!.xid);
      seen.push(((await db.$queryRawUnsafe("SELECT txid_current()::int AS xid")) as { xid: number }[])[0]!.xid);
      await db.$transaction(async (tx) => {
        seen.push((await tx.$queryRaw<{ xid: number }[]>`SELECT txid_current()::int AS xid`)[0]!.xid);
        await tx.organization.update({ where: { id: org.id }, data: { description: "inner" } });
      });
      await db.$transaction([db.organization.findUnique({ where: { id: org.id } })]);
      // Another actor's data layer, or the one that sees deleted rows, is on the same transaction.
      seen.push(
        (
          await unit.dataLayer("other", { includeDeleted: true }).$queryRaw<
            { xid: number }[]
          >`SELECT txid_current()::int AS xid`
        )[0]!.xid,
      );
      return seen;
    });
    expect(new Set(xids).size).toBe(1);
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe("inner");
  });

  it("begins its transaction at the first write: reads ahead of it run alone, reads after it see the unit's writes", async () => {
    const org = await createOrg(client);
    await inUnitOfWork(async (unit) => {
      const db = unit.dataLayer("test");
      await Promise.all([db.organization.findUnique({ where: { id: org.id } }), db.organization.count()]);
      expect(unit.begun).toBe(false);
      await db.organization.update({ where: { id: org.id }, data: { description: "seen inside" } });
      expect(unit.begun).toBe(true);
      expect((await db.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe("seen inside");
      // Not committed yet: a connection outside the unit still sees the row as it was.
      expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe(
        org.description,
      );
    });
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe("seen inside");
  });

  it("begins it for a write of many rows and for raw SQL (which may lock), and rolls those back too", async () => {
    const org = await createOrg(client);
    const failure = await inUnitOfWork(async (unit) => {
      await unit.dataLayer("test").organization.updateMany({ where: { id: org.id }, data: { description: "many" } });
      expect(unit.begun).toBe(true);
      throw new Error("boom");
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe(org.description);

    await inUnitOfWork(async (unit) => {
      await unit.dataLayer("test").$queryRaw`SELECT id FROM organizations WHERE id = ${org.id}::uuid FOR UPDATE`;
      expect(unit.begun).toBe(true);
    });
  });

  it("opens no transaction for a unit that only reads, or fails before writing", async () => {
    const org = await createOrg(client);
    let reader: { begun: boolean } | undefined;
    const found = await inUnitOfWork(async (unit) => {
      reader = unit;
      return unit.dataLayer("test").organization.findUnique({ where: { id: org.id } });
    });
    expect(found?.id).toBe(org.id);
    expect(reader?.begun).toBe(false);
    const failure = await inUnitOfWork(async (unit) => {
      await unit.dataLayer("test").organization.findUnique({ where: { id: org.id } });
      throw new Error("refused");
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe("refused");
  });

  it("rolls back everything when the work fails, and runs its after-commit hooks only when it commits", async () => {
    const org = await createOrg(client);
    const ran: string[] = [];
    const failure = await inUnitOfWork(async (unit) => {
      const db = unit.dataLayer("test");
      unit.afterCommit(() => ran.push("rolled back"));
      await db.organization.update({ where: { id: org.id }, data: { name: "never-kept" } });
      await db.$transaction(async (tx) =>
        tx.organization.update({ where: { id: org.id }, data: { description: "never" } }),
      );
      throw new Error("boom");
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const row = await client.organization.findUniqueOrThrow({ where: { id: org.id } });
    expect([row.name, row.description]).toEqual([org.name, org.description]);

    await inUnitOfWork(async (unit) => {
      unit.afterCommit(() => {
        ran.push("committed");
        throw new Error("a failing hook is ignored");
      });
      await unit.dataLayer("test").organization.update({ where: { id: org.id }, data: { description: "kept" } });
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["committed"]);
  });

  it.each([
    ["the test database's client", () => client],
    ["a client of its own", () => another],
  ])(
    "on %s, keeps nothing when the statement sent last before its COMMIT fails, and fails with it",
    async (_label, clientOf) => {
      const org = await createOrg(client);
      const failure = await inUnitOfWork(async (unit) => {
        const db = unit.dataLayer("test");
        await db.organization.update({ where: { id: org.id }, data: { description: "never kept" } });
        await db.$executeRawUnsafe("SELECT 1 / $1::int", 0);
      }, clientOf()).catch((error: unknown) => error);
      expect(String(failure)).toMatch(/division by zero/);
      expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe(
        org.description,
      );
      // The connection went back to the pool usable, its transaction ended.
      const kept = await inUnitOfWork(async (unit) => {
        const db = unit.dataLayer("test");
        await db.organization.update({ where: { id: org.id }, data: { description: "kept" } });
        await db.$executeRawUnsafe("SELECT 1");
        return "done";
      }, clientOf());
      expect(kept).toBe("done");
      expect((await client.organization.findUniqueOrThrow({ where: { id: org.id } })).description).toBe("kept");
    },
  );

  it("journals each single-row write with the row before and after it", async () => {
    const org = await createOrg(client);
    const writes = await inUnitOfWork(async (unit) => {
      const db = unit.dataLayer("test");
      await db.organization.findUniqueOrThrow({ where: { id: org.id } });
      await db.organization.update({ where: { id: org.id }, data: { description: "journalled" } });
      return unit.writes;
    });
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({
      model: "Organization",
      operation: "update",
      fields: ["description"],
      before: { id: org.id, description: org.description },
      after: { id: org.id, description: "journalled" },
    });
  });

  it("keeps the data layer's rules inside (soft-deleted rows stay out, updated_by is stamped)", async () => {
    const org = await createOrg(client);
    await client.organization.update({ where: { id: org.id }, data: { is_deleted: true } });
    const found = await inUnitOfWork((unit) =>
      unit.dataLayer("test").organization.findFirst({ where: { id: org.id } }),
    );
    expect(found).toBeNull();
    // In a service's own $transaction too.
    const nested = await inUnitOfWork((unit) =>
      unit.dataLayer("test").$transaction((tx) => tx.organization.findFirst({ where: { id: org.id } })),
    );
    expect(nested).toBeNull();
    const live = await createOrg(client);
    await inUnitOfWork((unit) =>
      unit.dataLayer("someone").organization.update({ where: { id: live.id }, data: { description: "x" } }),
    );
    expect((await client.organization.findUniqueOrThrow({ where: { id: live.id } })).updated_by).toBe("someone");
  });
});
