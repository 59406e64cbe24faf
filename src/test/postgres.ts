import { randomBytes } from "node:crypto";
import pg from "pg";

// Integration tests run against a real PostgreSQL server: TEST_DATABASE_URL, by default the local
// server with trust auth. Each test file gets its own database, cloned from a migrated template.

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString("hex")}`;

export async function createDatabase(name: string, template?: string): Promise<string> {
  await adminQuery(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  return databaseUrl(name);
}

export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
