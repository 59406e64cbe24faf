import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { maintenanceConnectionSettings } from "./client";

// Applies prisma/migrations/<name>/migration.sql in order and records them in Prisma's own
// `_prisma_migrations` table (same columns, same SHA-256 checksums), so Prisma's CLI can take over
// wherever its native engine is available. Needs no engine and downloads nothing.
// - Each migration runs in one transaction with its record: it is applied whole or not at all.
// - A session advisory lock serializes concurrent runners (two app processes starting at once).

export const MIGRATIONS_DIR = path.resolve(process.cwd(), "prisma/migrations");
const LOCK_KEY = 727_073_690; // arbitrary, fixed: "svc migrations"
export const MIN_SERVER_VERSION = 140000;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationError";
  }
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Fails with one clear line when the server is older than PostgreSQL 14. */
export async function assertServerVersion(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
  const version = Number(rows[0]?.v);
  if (!(version >= MIN_SERVER_VERSION)) {
    const major = Math.floor(version / 10000);
    throw new MigrationError(`PostgreSQL 14 or newer is required; the server is PostgreSQL ${major}.`);
  }
}

export async function migrate(url: string, migrations?: MigrationFile[]): Promise<MigrateResult> {
  const files = migrations ?? (await readMigrations());
  const client = new pg.Client({ connectionString: url, ...maintenanceConnectionSettings() });
  await client.connect();
  try {
    await assertServerVersion(client);
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
        `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
      );
      const recorded = new Map(rows.map((r) => [r.migration_name, r]));
      const result: MigrateResult = { applied: [], alreadyApplied: [] };
      for (const file of files) {
        const row = recorded.get(file.name);
        if (row) {
          if (!row.finished_at) {
            throw new MigrationError(
              `Migration ${file.name} is recorded as started but not finished; repair the database before migrating.`,
            );
          }
          if (row.checksum !== file.checksum) {
            throw new MigrationError(
              `Migration ${file.name} was changed after it was applied; restore its original file.`,
            );
          }
          result.alreadyApplied.push(file.name);
          continue;
        }
        await applyOne(client, file);
        result.applied.push(file.name);
      }
      return result;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function applyOne(client: pg.Client, file: MigrationFile): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(file.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), file.checksum, file.name],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`Migration ${file.name} failed and was rolled back: ${reason}`);
  }
}
