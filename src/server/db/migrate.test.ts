import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { assertServerVersion, migrate, readMigrations, type MigrationFile } from "./migrate";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";

const created: string[] = [];
async function emptyDatabase(): Promise<string> {
  const name = uniqueName("svc_migrate");
  created.push(name);
  return createDatabase(name);
}
afterAll(async () => {
  for (const name of created) await dropDatabase(name);
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("migrate", () => {
  it("applies every migration to an empty database and records it in Prisma's table", async () => {
    const url = await emptyDatabase();
    const files = await readMigrations();
    const result = await migrate(url);
    expect(result.applied).toEqual(files.map((f) => f.name));
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      url,
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((f) => [f.name, f.checksum]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it("changes nothing on a migrated database", async () => {
    const url = await emptyDatabase();
    await migrate(url);
    const before = await query(url, `SELECT * FROM "_prisma_migrations"`);
    const again = await migrate(url);
    expect(again.applied).toEqual([]);
    expect(await query(url, `SELECT * FROM "_prisma_migrations"`)).toEqual(before);
  });

  it("is safe when several processes migrate the same database at once", async () => {
    const url = await emptyDatabase();
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    const files = await readMigrations();
    expect(results.flatMap((r) => r.applied).sort()).toEqual(files.map((f) => f.name).sort());
    const rows = await query<{ n: string }>(url, `SELECT count(*) AS n FROM "_prisma_migrations"`);
    expect(Number(rows[0]?.n)).toBe(files.length);
  });

  it("rolls a failing migration back whole and reports it in one line", async () => {
    const url = await emptyDatabase();
    const broken: MigrationFile[] = [
      { name: "001_ok", sql: "CREATE TABLE a (id int)", checksum: "a".repeat(64) },
      { name: "002_broken", sql: "CREATE TABLE b (id int); SELECT no_such_function();", checksum: "b".repeat(64) },
    ];
    await expect(migrate(url, broken)).rejects.toThrow(
      /^Migration 002_broken failed and was rolled back: .*no_such_function/,
    );
    const tables = await query<{ table_name: string }>(
      url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(["_prisma_migrations", "a"]);
    const recorded = await query<{ migration_name: string }>(url, `SELECT migration_name FROM "_prisma_migrations"`);
    expect(recorded.map((r) => r.migration_name)).toEqual(["001_ok"]);
  });

  it("refuses a migration whose file changed after it was applied", async () => {
    const url = await emptyDatabase();
    const original: MigrationFile = { name: "001_x", sql: "CREATE TABLE x (id int)", checksum: "c".repeat(64) };
    await migrate(url, [original]);
    await expect(migrate(url, [{ ...original, checksum: "d".repeat(64) }])).rejects.toThrow(
      "Migration 001_x was changed after it was applied",
    );
  });

  it("refuses a server older than PostgreSQL 14 in one line", async () => {
    // A server reporting version 13.11, as PostgreSQL 13 does through current_setting().
    const old = { query: async () => ({ rows: [{ v: "130011" }] }) } as unknown as pg.ClientBase;
    await expect(assertServerVersion(old)).rejects.toThrow(
      "PostgreSQL 14 or newer is required; the server is PostgreSQL 13.",
    );
    const client = new pg.Client({ connectionString: await emptyDatabase() });
    await client.connect();
    await expect(assertServerVersion(client)).resolves.toBeUndefined();
    await client.end();
  });

  it("names the cause when the server cannot be reached", async () => {
    await expect(migrate("postgresql://postgres@127.0.0.1:1/none")).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });
});
