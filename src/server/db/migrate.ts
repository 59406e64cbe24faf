import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { env } from "@/server/env";
import { IDLE_IN_TRANSACTION_TIMEOUT_MS, maintenanceConnectionSettings } from "./client";
import { applyRoleTimeouts, connectClient } from "./pooler";

// Applies prisma/migrations in order, each in one transaction with its record in Prisma's own
// `_prisma_migrations` table, so Prisma's CLI can take over wherever its native engine is available;
// it needs no engine and downloads nothing. A transaction-scoped advisory lock serializes concurrent
// runners, through a pooler too; then the role's timeouts are set (pooler.ts).
// See docs/decisions/007-own-migration-runner.md.

const MIGRATIONS_DIR = path.resolve(process.cwd(), "prisma/migrations");
const LOCK_KEY = 727_073_690; // arbitrary, fixed: "svc migrations"
const MIN_SERVER_VERSION = 140000;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

class MigrationError extends Error {
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
  const client = await connectClient({ connectionString: url, ...maintenanceConnectionSettings() });
  client.on("error", () => undefined);
  try {
    await assertServerVersion(client);
    await locked(client, () => client.query(CREATE_TABLE));
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const file of files) {
      const applied = await locked(client, async () => {
        const { rows } = await client.query<{ checksum: string; finished_at: Date | null }>(
          `SELECT checksum, finished_at FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL`,
          [file.name],
        );
        const row = rows[0];
        if (!row) return applyOne(client, file);
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
        return false;
      });
      (applied ? result.applied : result.alreadyApplied).push(file.name);
    }
    const { DATABASE_STATEMENT_TIMEOUT_MS } = env();
    // Under the lock too: two runners changing the role's settings at once would collide.
    await locked(client, () =>
      applyRoleTimeouts(client, DATABASE_STATEMENT_TIMEOUT_MS, IDLE_IN_TRANSACTION_TIMEOUT_MS),
    );
    return result;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Applies every migration and records it, inside the caller's transaction on an empty database
 * (a move: the schema and the rows then commit together or not at all).
 */
export async function migrateWithin(client: pg.ClientBase, files: MigrationFile[]): Promise<void> {
  await client.query(CREATE_TABLE);
  for (const file of files) await applyOne(client, file);
}

/** The recorded migrations this code does not have: the database is newer than the code. */
export async function unknownMigrations(client: pg.ClientBase, files: MigrationFile[]): Promise<string[]> {
  const known = new Set(files.map((f) => f.name));
  const { rows } = await client.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY migration_name`,
  );
  return rows.map((r) => r.migration_name).filter((name) => !known.has(name));
}

/**
 * Runs `work` in a transaction holding the migrations' advisory lock: runners started together (two
 * replicas) take turns, and each looks again once it holds the lock. A transaction-scoped lock, so
 * that it holds through a transaction pooler too (a session lock would stay with whichever server
 * connection took it); with no statement timeout, since a migration may rightly run long.
 */
async function locked<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  return inTransaction(client, async () => {
    await client.query("SET LOCAL statement_timeout = 0");
    await client.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
    return work();
  });
}

/** Runs `work` in a transaction on `client`: committed when it succeeds, rolled back when it throws. */
export async function inTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Applies one migration with its record, inside the caller's transaction; rolled back with it on failure. */
async function applyOne(client: pg.ClientBase, file: MigrationFile): Promise<true> {
  try {
    await client.query(file.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), file.checksum, file.name],
    );
    return true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`Migration ${file.name} failed and was rolled back: ${reason}`);
  }
}
