import { randomBytes } from "node:crypto";
import pg from "pg";

// Integration tests run against a real PostgreSQL server: TEST_DATABASE_URL, by default the local
// server with trust auth. Each test file gets its own database, cloned from a migrated template.

/** One statement on a connection of its own to the database at `url`, closed after it. */
export async function queryOnce(url: string, sql: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL server on which databases are made and dropped: the tests' own, or a benchmark's. */
export function postgresServer(adminUrl: string) {
  const databaseUrl = (name: string): string => {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const adminQuery = (sql: string): Promise<void> => queryOnce(adminUrl, sql);
  return { databaseUrl, adminQuery };
}

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const { databaseUrl, adminQuery } = postgresServer(ADMIN_URL);

export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString("hex")}`;

export async function createDatabase(name: string, template?: string): Promise<string> {
  await adminQuery(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  return databaseUrl(name);
}

export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
