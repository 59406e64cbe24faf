import "server-only";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";
import { env } from "@/server/env";

export type BaseClient = PrismaClient;

export interface BaseClientOptions {
  /** Connections in the pool. */
  poolMax?: number;
  /** Named statements (see DATABASE_PREPARED_STATEMENTS); off for the embedded database. */
  preparedStatements?: boolean;
}

// Named statements are parsed once per connection and their plans cached by PostgreSQL (a generic
// plan prunes partitions at run time), which spares the parser and planner on every hot-path
// query. At most PREPARED_STATEMENT_LIMIT distinct statements get a name per process, so that
// statements whose text varies (IN lists of varying length) cannot grow each connection's cache
// without bound; the rest stay unnamed.
const PREPARED_STATEMENT_LIMIT = 500;

// Process-wide state lives on globalThis: Next.js bundles this module into several server chunks,
// each with its own module scope, and a client made in one must be usable from another.
const shared = globalThis as unknown as {
  svcBaseClient?: BaseClient;
  svcStatementNames?: Map<string, string>;
  svcPools?: WeakMap<BaseClient, Pooled>;
};
const statementNames = (shared.svcStatementNames ??= new Map<string, string>());

function statementName(sql: string): string | undefined {
  const known = statementNames.get(sql);
  if (known !== undefined || statementNames.size >= PREPARED_STATEMENT_LIMIT) return known;
  const name = `svc_${createHash("sha1").update(sql).digest("base64url")}`;
  statementNames.set(sql, name);
  return name;
}

interface Pooled {
  pool: pg.Pool;
  name: (sql: string) => string | undefined;
}

const pools = (shared.svcPools ??= new WeakMap<BaseClient, Pooled>());

/** A Prisma client over node-postgres for one connection string (real or embedded PostgreSQL). */
export function createBaseClient(url: string, options: BaseClientOptions = {}): BaseClient {
  const pool = new pg.Pool({ connectionString: url, max: options.poolMax ?? env().DATABASE_POOL_MAX });
  const prepared = options.preparedStatements ?? env().DATABASE_PREPARED_STATEMENTS === "1";
  const name = prepared ? statementName : () => undefined;
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
 * (building, then decoding, a typed result). For the hottest reads only, whose rows node-postgres
 * already gives in their final shape; everything else goes through the data layer.
 */
export async function queryRows<T extends pg.QueryResultRow>(sql: string, values: unknown[], client = baseClient()): Promise<T[]> {
  const pooled = pools.get(client);
  if (!pooled) throw new Error("queryRows needs a client made by createBaseClient");
  return (await pooled.pool.query<T>({ name: pooled.name(sql), text: sql, values })).rows;
}

/** The process-wide client for DATABASE_URL, kept across hot reloads in development. */
export function baseClient(): BaseClient {
  if (shared.svcBaseClient) return shared.svcBaseClient;
  const url = env().DATABASE_URL;
  if (!url) {
    throw new Error(
      "DATABASE_URL is not set: start the app with `npm start` (it brings up the embedded database) or set it.",
    );
  }
  shared.svcBaseClient = createBaseClient(url);
  return shared.svcBaseClient;
}

/** Makes `client` the process-wide client: for the CLI, on the database it resolved. */
export function useBaseClient(client: BaseClient): void {
  shared.svcBaseClient = client;
}
