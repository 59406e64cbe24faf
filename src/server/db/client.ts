import "server-only";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";
import { env } from "@/server/env";
import { onShutdown } from "@/server/lifecycle";
import { processState } from "@/server/process-state";
import { behindPooler, setSessionTimeouts } from "./pooler";

export type BaseClient = PrismaClient;

export interface BaseClientOptions {
  /** Connections in the pool. */
  poolMax?: number;
  /** Named statements (see DATABASE_PREPARED_STATEMENTS); off for the embedded database. */
  preparedStatements?: boolean;
}

/** A transaction left idle this long is ended by the server, releasing its locks (ms). */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;
/** The client waits this much longer than the server's statement_timeout before giving up on an answer. */
const QUERY_TIMEOUT_MARGIN_MS = 1_000;

/**
 * How every connection meets a database that is down or silent, so that a request answers 503
 * within seconds instead of hanging: a bounded wait for a connection (new, or free in the pool), a
 * statement timeout on the server and a slightly longer one here (a black-holed server never
 * answers), TCP keepalive, and no transaction left idle holding locks. A transaction pooler refuses
 * the server-side ones as startup parameters: there they come from the role's settings (pooler.ts).
 */
export function connectionSettings(): pg.ClientConfig & Pick<pg.PoolConfig, "connectionTimeoutMillis"> {
  const { DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS } = env();
  return {
    connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
    statement_timeout: DATABASE_STATEMENT_TIMEOUT_MS,
    query_timeout: DATABASE_STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_MARGIN_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * For a connection whose statements may rightly run long or wait (migrations behind their advisory
 * lock, partition upkeep moving rows): a bounded wait to connect and keepalive, no statement timeout
 * (lifted explicitly, since the role's settings may hold one). Behind a pooler, where no startup
 * parameter passes, migrations lift it per transaction with SET LOCAL, and upkeep goes to
 * DATABASE_DIRECT_URL when it is set.
 */
export function maintenanceConnectionSettings(): pg.ClientConfig {
  const { connectionTimeoutMillis, keepAlive, keepAliveInitialDelayMillis } = connectionSettings();
  return {
    connectionTimeoutMillis,
    keepAlive,
    keepAliveInitialDelayMillis,
    statement_timeout: 0,
    idle_in_transaction_session_timeout: 0,
  };
}

/**
 * node-postgres gives up waiting for an answer after query_timeout but keeps the connection, which
 * still waits for that answer: every later statement on it would queue behind it and time out in
 * turn. A connection handed back to the pool with its session not at rest (a statement unanswered,
 * a transaction left open) is closed instead of reused; the pool drops a connection that is ending.
 * One handed back with an error is dropped by the pool itself.
 */
function closeUnlessAtRest(error: Error | undefined, connection: pg.PoolClient): void {
  if (!error && connection.getTransactionStatus() !== "I") void connection.end();
}

// Named statements are parsed once per connection and their plans cached by PostgreSQL (a generic
// plan prunes partitions at run time), which spares the parser and planner on every hot-path
// query. At most PREPARED_STATEMENT_LIMIT distinct statements get a name per process, so that
// statements whose text varies (IN lists of varying length) cannot grow each connection's cache
// without bound; the rest stay unnamed. A pattern match (the lists' `q` search) stays unnamed too:
// its best plan depends on the pattern (a trigram index for a rare one, the list's order for one
// that most rows match), and a cached generic plan, made without it, reads the whole table for a
// search that matches nothing. An unnamed statement is planned with its values every time. What
// they save: docs/decisions/052-named-statements.md.
const PREPARED_STATEMENT_LIMIT = 500;
const PLANNED_WITH_VALUES = / I?LIKE /i;

// Kept per process (a client made in one server chunk must be usable from another).
const statementNames = processState("statementNames", () => new Map<string, string>());
const shared = processState("baseClient", () => ({}));

function statementName(sql: string): string | undefined {
  const known = statementNames.get(sql);
  if (known !== undefined || statementNames.size >= PREPARED_STATEMENT_LIMIT || PLANNED_WITH_VALUES.test(sql))
    return known;
  const name = `svc_${createHash("sha1").update(sql).digest("base64url")}`;
  statementNames.set(sql, name);
  return name;
}

export interface Pooled {
  pool: pg.Pool;
  name: (sql: string) => string | undefined;
}

const pools = processState("pools", () => new WeakMap<BaseClient, Pooled>());

/** A Prisma client over node-postgres for one connection string (real or embedded PostgreSQL). */
export function createBaseClient(url: string, options: BaseClientOptions = {}): BaseClient {
  // The server-side timeouts are set on each new connection rather than sent at its start, which a
  // transaction pooler would refuse (see setSessionTimeouts).
  const { statement_timeout, idle_in_transaction_session_timeout, ...settings } = connectionSettings();
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? env().DATABASE_POOL_MAX,
    ...settings,
    onConnect: setSessionTimeouts(url, { statement_timeout, idle_in_transaction_session_timeout }),
  });
  pool.on("release", closeUnlessAtRest);
  const prepared = options.preparedStatements ?? env().DATABASE_PREPARED_STATEMENTS === "1";
  // Behind a transaction pooler (before PgBouncer 1.21) a named statement may meet another session.
  const name = prepared ? (sql: string) => (behindPooler(url) ? undefined : statementName(sql)) : () => undefined;
  const adapter = new PrismaPg(pool, {
    // The adapter passes the name on to node-postgres, for which undefined means unnamed.
    statementNameGenerator: (query) => name(query.sql) as string,
    disposeExternalPool: true,
  });
  const client = new PrismaClient({ adapter });
  pools.set(client, { pool, name });
  return client;
}

/**
 * Rows of one SQL statement, sent through the client's own pool without Prisma's per-query work
 * (building, then decoding, a typed result). For the hottest statements only, whose rows
 * node-postgres already gives in their final shape; everything else goes through the data layer.
 */
export async function queryRows<T extends pg.QueryResultRow>(
  sql: string,
  values: unknown[],
  client = baseClient(),
): Promise<T[]> {
  const pooled = pools.get(client);
  if (!pooled) throw new Error("queryRows needs a client made by createBaseClient");
  return (await pooled.pool.query<T>({ name: pooled.name(sql), text: sql, values })).rows;
}

/** The process-wide client for DATABASE_URL, kept across hot reloads in development. */
export function baseClient(): BaseClient {
  if (shared.current) return shared.current;
  const url = env().DATABASE_URL;
  if (!url) {
    throw new Error(
      "DATABASE_URL is not set: start the app with `npm start` (it brings up the embedded database) or set it.",
    );
  }
  const client = createBaseClient(url);
  shared.current = client;
  onShutdown("close", () => closeBaseClient(client));
  return client;
}

/**
 * Ends the client and its pool. Prisma ends the pool only when it has itself connected, and
 * queryRows uses the pool directly: a pool left open has its connections dropped at the exit.
 */
async function closeBaseClient(client: BaseClient): Promise<void> {
  await client.$disconnect();
  const pool = pools.get(client)?.pool;
  if (pool && !pool.ending) await pool.end();
}

/**
 * Whether the database answers a trivial statement within `ms`, however it fails: down, silent,
 * or every pooled connection busy.
 */
export async function databaseAnswers(ms: number, client = baseClient()): Promise<boolean> {
  const pooled = pools.get(client);
  if (!pooled) throw new Error("databaseAnswers needs a client made by createBaseClient");
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const answer = pooled.pool.query("SELECT 1").then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Connections of the process-wide pool: in use, idle, and requests waiting for one (for metrics). */
export function poolUsage(): { total: number; idle: number; waiting: number } | undefined {
  const pooled = shared.current && pools.get(shared.current);
  return pooled && { total: pooled.pool.totalCount, idle: pooled.pool.idleCount, waiting: pooled.pool.waitingCount };
}

/** Makes `client` the process-wide client: for the CLI, on the database it resolved. */
export function useBaseClient(client: BaseClient): void {
  shared.current = client;
}
