import "server-only";
import pg from "pg";
import { maintenanceConnectionSettings } from "./client";
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

// Restoring a dump into an empty database, and moving a database (the embedded one, typically)
// into an empty PostgreSQL. Each checks everything it can before writing anything, then writes in
// one transaction: a failure leaves the target as empty as it was.

export class TransferError extends Error {}

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

// The dump's text in spans: data, and the lines outside it that only psql reads (a backslash
// command, COPY's rows from stdin) or that set a setting.
const SPANS = new RegExp(
  String.raw`${DATA}|(?<=^|\n)(\\[^\n]*|COPY [^\n]* FROM stdin;|SET (\w+) = [^\n]*)(?=\n|$)`,
  "g",
);

/**
 * The dump as the target can run it: anything psql alone reads is refused, but for the fence a
 * newer pg_dump puts around its output (`\restrict KEY` … `\unrestrict KEY`, for psql), which is
 * left out; so is the SET of a setting the target's (older) server does not know (a newer pg_dump
 * sets transaction_timeout, say).
 */
async function runnable(client: pg.ClientBase, sql: string): Promise<string> {
  const { rows } = await client.query<{ name: string }>("SELECT name FROM pg_settings");
  const known = new Set(rows.map((r) => r.name));
  let fence: string | undefined;
  return sql.replace(SPANS, (span, _tag, line: string | undefined, setting: string | undefined) => {
    if (line === undefined) return span;
    if (setting !== undefined) return known.has(setting) ? line : "";
    fence ??= /^\\restrict ([A-Za-z0-9]+)$/.exec(line)?.[1] ?? "";
    if (fence && (line === `\\restrict ${fence}` || line === `\\unrestrict ${fence}`)) return "";
    throw new TransferError("The dump holds psql commands: make it with `npm run svc -- db dump`.");
  });
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

/** Restores a dump of `svc db dump` into the empty database at `url`. */
export async function restoreDump(url: string, sql: string, files?: MigrationFile[]): Promise<void> {
  const migrations = files ?? (await readMigrations());
  const recorded = migrationsInDump(sql);
  if (recorded.length === 0) throw new TransferError("The file is not a dump of svc: it records no migrations.");
  assertKnown(recorded, migrations, "The dump");
  const client = await emptyTarget(url);
  try {
    const body = await runnable(client, sql);
    await inTransaction(client, () => client.query(body));
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

const TABLES = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
  WHERE s.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> '_prisma_migrations'
  ORDER BY 1`;

async function rowCounts(client: pg.ClientBase): Promise<Record<string, number>> {
  const { rows } = await client.query<{ name: string }>(TABLES);
  const counts: Record<string, number> = {};
  for (const { name } of rows) {
    const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM public.${pg.escapeIdentifier(name)}`);
    counts[name] = Number(result.rows[0]?.n ?? 0);
  }
  return counts;
}

/** The source's message partitions, as statements that make them on the target. */
async function partitionsOf(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'public.messages'::regclass ORDER BY 1`,
  );
  return rows.map(
    (r) => `CREATE TABLE IF NOT EXISTS public.${pg.escapeIdentifier(r.name)} PARTITION OF public.messages ${r.bound}`,
  );
}

/**
 * Copies the source into the empty PostgreSQL at `targetUrl`: the migrations, the source's message
 * partitions, then every row (sequences set), in one transaction that commits only when every
 * table holds as many rows as the source's. The source is only read.
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
  try {
    const recorded = await unknownMigrations(from, []);
    assertKnown(recorded, migrations, "The database");
    const missing = migrations.filter((f) => !recorded.includes(f.name));
    if (missing.length > 0)
      throw new TransferError(
        `The database lacks ${missing.length} migration(s) of this version: run \`npm run svc -- migrate\` first.`,
      );
    partitions = await partitionsOf(from);
  } catch (error) {
    await from.end().catch(() => undefined);
    throw error;
  }
  try {
    const target = await emptyTarget(targetUrl);
    try {
      const rows = await runnable(
        target,
        await source.dump({ dataOnly: true, excludeTableData: ["_prisma_migrations"] }),
      );
      const expected = await rowCounts(from);
      return await inTransaction(target, async () => {
        await migrateWithin(target, migrations);
        for (const statement of partitions) await target.query(statement);
        await target.query(rows);
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
