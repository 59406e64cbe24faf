import "server-only";
import pg from "pg";
import { getConstructionPlans } from "pg-boss";
import { QUEUE_SCHEMA } from "@/server/jobs/queue";
import { maintenanceConnectionSettings } from "./client";
import { DATA_SCHEMAS, DumpRefused, planDump, type DumpPlan } from "./dump-statements";
import type { DumpOptions } from "./embedded-dump";
import {
  assertServerVersion,
  inTransaction,
  migrateWithin,
  readMigrations,
  unknownMigrations,
  type MigrationFile,
} from "./migrate";
import { connectClient } from "./pooler";

// Restoring a dump into an empty database, and moving a database (the embedded one, typically) into
// an empty PostgreSQL. Each checks everything it can, then writes in one transaction, so a failure
// leaves the target empty. The schema comes from svc's migrations and pg-boss's own plan; only rows
// come from the dump (dump-statements.ts). See docs/decisions/050-restore-confinement.md.

class TransferError extends Error {}

// A dump's text that is data: string literals, quoted identifiers, comments and dollar-quoted
// bodies. Whatever looks like a statement or a psql line inside them is passed over, so that a
// message's text can neither be taken for a command nor keep its dump from being restored.
const DATA = String.raw`'[^']*(?:''[^']*)*'|"[^"]*(?:""[^"]*)*"|--[^\n]*|\/\*[\s\S]*?\*\/|\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$`;

// The dump's text in tokens: data, the start of an INSERT into `_prisma_migrations`, and the
// semicolon that ends a statement.
const MIGRATION_RECORDS = new RegExp(
  String.raw`${DATA}|(?<=^|\n)INSERT INTO (?:public\.)?"?_prisma_migrations"? |;`,
  "g",
);

/** The migration names a dump records (its rows of `_prisma_migrations`). */
export function migrationsInDump(sql: string): string[] {
  const names = new Set<string>();
  let inRecord = false;
  for (const [token] of sql.matchAll(MIGRATION_RECORDS)) {
    if (token.startsWith("INSERT")) inRecord = true;
    else if (token === ";") inRecord = false;
    else if (inRecord) {
      const name = /^'(\d{14}_[a-z0-9_]+)'$/.exec(token)?.[1];
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

/** Refuses a target that holds any table, view or sequence of its own. */
async function assertEmpty(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg\\_toast%'
       AND s.nspname NOT LIKE 'pg\\_temp%' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
  );
  if ((rows[0]?.n ?? 0) > 0)
    throw new TransferError(
      `The target database is not empty (${rows[0]?.n} tables, views or sequences): use a new, empty database.`,
    );
}

/** A connection to the target, checked: reachable, PostgreSQL 14+, empty. */
async function emptyTarget(url: string): Promise<pg.Client> {
  const client = await connectClient({ connectionString: url, ...maintenanceConnectionSettings() });
  client.on("error", () => undefined);
  try {
    await assertServerVersion(client);
    await assertEmpty(client);
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

/** Refuses a dump or database whose schema is newer than this code's migrations. */
function assertKnown(recorded: string[], files: MigrationFile[], what: string): void {
  const known = new Set(files.map((f) => f.name));
  const unknown = recorded.filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw new TransferError(
      `${what} is from a newer version of svc (migration ${unknown[0]} is unknown here): upgrade svc first.`,
    );
}

/** The dump read into what a restore runs, or a TransferError naming what it refuses. */
function checkedPlan(sql: string): DumpPlan {
  try {
    return planDump(sql);
  } catch (error) {
    if (error instanceof DumpRefused) throw new TransferError(error.message);
    throw error;
  }
}

/**
 * pg-boss's schema as pg-boss makes it, inside the caller's transaction: its construction plan is
 * one transaction of its own, which is run without its BEGIN and COMMIT. The version it installs
 * must be the one the rows are of; its own record of it makes way for theirs.
 */
async function installQueue(client: pg.ClientBase, version: number): Promise<void> {
  const body = /^\s*BEGIN;([\s\S]*)COMMIT;\s*$/.exec(getConstructionPlans(QUEUE_SCHEMA))?.[1];
  if (!body) throw new Error("pg-boss's construction plan is no longer one transaction: svc cannot install it.");
  await client.query(body);
  const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${QUEUE_SCHEMA}.version`);
  const installed = Number(rows[0]?.version);
  if (installed !== version)
    throw new TransferError(
      `The job queue's rows are of pg-boss schema version ${version}, this svc's pg-boss makes version ${installed}: start the app of the same svc version on the source once, then dump or move again.`,
    );
  await client.query(`DELETE FROM ${QUEUE_SCHEMA}.version`);
}

/** The rows of a plan into the target, whose migrations have run: the queue's schema, partitions, rows. */
async function load(client: pg.ClientBase, plan: DumpPlan, partitions: string[], queueVersion?: number) {
  if (queueVersion !== undefined) await installQueue(client, queueVersion);
  for (const statement of partitions) await client.query(statement);
  const order = await tablesInOrder(client);
  const rank = (table?: string) => (table === undefined ? -1 : (order.get(table) ?? order.size));
  // Rows in the order their foreign keys allow (pg_dump orders a full dump's rows by name, its
  // constraints coming after them); search_path first, sequence positions last.
  const statements = plan.data
    .map((statement, at) => ({
      ...statement,
      at,
      rank: statement.sql.includes(".setval(") ? order.size + 1 : rank(statement.table),
    }))
    .sort((a, b) => a.rank - b.rank || a.at - b.at);
  if (statements.length > 0) await client.query(statements.map((s) => s.sql).join(";\n"));
}

/** The target's tables (partitions by their own names too), referenced ones before those referencing them. */
async function tablesInOrder(client: pg.ClientBase): Promise<Map<string, number>> {
  const name = (alias: string) =>
    `(SELECT format('%s.%s', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ${alias})`;
  const { rows: keys } = await client.query<{ child: string; parent: string }>(
    `SELECT ${name("conrelid")} AS child, ${name("confrelid")} AS parent FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid`,
  );
  const { rows: parts } = await client.query<{ part: string; root: string }>(
    `SELECT ${name("inhrelid")} AS part, ${name("inhparent")} AS root FROM pg_inherits`,
  );
  const rootOf = new Map(parts.map((p) => [p.part, p.root]));
  const top = (table: string): string => (rootOf.has(table) ? top(rootOf.get(table)!) : table);
  const needs = new Map<string, Set<string>>();
  for (const { child, parent } of keys) {
    if (!needs.has(top(child))) needs.set(top(child), new Set());
    needs.get(top(child))!.add(top(parent));
  }
  const order = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (order.has(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const parent of needs.get(table) ?? []) visit(parent);
    order.set(table, order.size);
  };
  for (const table of [...needs.keys(), ...parts.map((p) => p.root)]) visit(table);
  for (const [part] of rootOf) order.set(part, order.get(top(part)) ?? order.size);
  return order;
}

/** Restores a dump of `svc db dump` into the empty database at `url`. */
export async function restoreDump(url: string, sql: string, files?: MigrationFile[]): Promise<void> {
  const migrations = files ?? (await readMigrations());
  const recorded = migrationsInDump(sql);
  if (recorded.length === 0) throw new TransferError("The file is not a dump of svc: it records no migrations.");
  assertKnown(recorded, migrations, "The dump");
  const plan = checkedPlan(sql);
  const client = await emptyTarget(url);
  try {
    await inTransaction(client, async () => {
      // The rows' strings are read as pg_dump wrote them, whatever the server's default.
      await client.query("SET LOCAL standard_conforming_strings = on");
      await migrateWithin(
        client,
        migrations.filter((file) => recorded.includes(file.name)),
      );
      const partitions = plan.partitions.map(
        (p) => `CREATE TABLE IF NOT EXISTS ${p.child} PARTITION OF ${p.parent} ${p.bound}`,
      );
      await load(client, plan, partitions, plan.queueVersion);
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface MoveSource {
  url: string;
  dump(options: DumpOptions): Promise<string>;
}

export interface MoveResult {
  /** Rows per table, equal in source and target. */
  tables: Record<string, number>;
}

const SCHEMAS = DATA_SCHEMAS.map((schema) => pg.escapeLiteral(schema)).join(", ");

/** Every table of the app's schemas (public and the job queue's), partitions counted in their parent. */
const TABLES = `SELECT s.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
  WHERE s.nspname IN (${SCHEMAS}) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    AND (s.nspname, c.relname) <> ('public', '_prisma_migrations')
  ORDER BY 1, 2`;

async function rowCounts(client: pg.ClientBase): Promise<Record<string, number>> {
  const { rows } = await client.query<{ schema: string; name: string }>(TABLES);
  const counts: Record<string, number> = {};
  for (const { schema, name } of rows) {
    const table = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
    const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    counts[`${schema}.${name}`] = Number(result.rows[0]?.n ?? 0);
  }
  return counts;
}

/** The source's partitions (messages' months, the job queue's days), as statements that make them on the target. */
async function partitionsOf(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ schema: string; parent: string; name: string; bound: string }>(
    `SELECT s.nspname AS schema, p.relname AS parent, c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     JOIN pg_namespace s ON s.oid = p.relnamespace
     WHERE p.relkind = 'p' AND s.nspname IN (${SCHEMAS}) ORDER BY 1, 2, 3`,
  );
  return rows.map((r) => {
    const schema = pg.escapeIdentifier(r.schema);
    return `CREATE TABLE IF NOT EXISTS ${schema}.${pg.escapeIdentifier(r.name)} PARTITION OF ${schema}.${pg.escapeIdentifier(r.parent)} ${r.bound}`;
  });
}

/** The pg-boss schema version of the source's job queue; undefined where the app has never run on it. */
async function queueVersionOf(client: pg.ClientBase): Promise<number | undefined> {
  const table = `${QUEUE_SCHEMA}.version`;
  const { rows } = await client.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [table]);
  if (!rows[0]?.present) return undefined;
  const version = await client.query<{ version: number }>(`SELECT version FROM ${table}`);
  return version.rows[0] === undefined ? undefined : Number(version.rows[0].version);
}

/**
 * Copies the source into the empty PostgreSQL at `targetUrl`: the migrations, the job queue's schema
 * (by pg-boss's construction plan), the source's partitions, then every row of the app's schemas
 * (sequences set), in one transaction that commits only when every table holds as many rows as
 * the source's. The source is only read.
 */
export async function moveDatabase(
  source: MoveSource,
  targetUrl: string,
  files?: MigrationFile[],
): Promise<MoveResult> {
  const migrations = files ?? (await readMigrations());
  const from = new pg.Client({ connectionString: source.url, ...maintenanceConnectionSettings() });
  from.on("error", () => undefined);
  await from.connect();
  let partitions: string[];
  let queueVersion: number | undefined;
  try {
    const recorded = await unknownMigrations(from, []);
    assertKnown(recorded, migrations, "The database");
    const missing = migrations.filter((f) => !recorded.includes(f.name));
    if (missing.length > 0)
      throw new TransferError(
        `The database lacks ${missing.length} migration(s) of this version: run \`npm run svc -- migrate\` first.`,
      );
    partitions = await partitionsOf(from);
    queueVersion = await queueVersionOf(from);
  } catch (error) {
    await from.end().catch(() => undefined);
    throw error;
  }
  try {
    const target = await emptyTarget(targetUrl);
    try {
      const rows = checkedPlan(await source.dump({ dataOnly: true, excludeTableData: ["_prisma_migrations"] }));
      const expected = await rowCounts(from);
      return await inTransaction(target, async () => {
        await target.query("SET LOCAL standard_conforming_strings = on");
        await migrateWithin(target, migrations);
        await load(target, rows, partitions, queueVersion);
        await target.query("SELECT pg_catalog.set_config('search_path', 'public', true)");
        const moved = await rowCounts(target);
        for (const [table, count] of Object.entries(expected)) {
          if (moved[table] !== count)
            throw new TransferError(
              `Table ${table} has ${moved[table] ?? 0} rows in the target and ${count} in the source (did the app write meanwhile?): nothing was moved; stop the app and move again.`,
            );
        }
        return { tables: moved };
      });
    } finally {
      await target.end().catch(() => undefined);
    }
  } finally {
    await from.end().catch(() => undefined);
  }
}
