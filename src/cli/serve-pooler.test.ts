import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { freePort } from "@/server/free-port";
import { readMigrations } from "@/server/db/migrate";
import { Browserless, PROCESS_TEST_TIMEOUT_MS, TEST_AUTH_SECRET, TEST_ENCRYPTION_KEYS, untilReady } from "@/test/app";
import { serve, svc, untilHealthy, type Serving } from "@/test/cli";
import { startPgBouncer } from "@/test/pgbouncer";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";

// `npm start` as a fleet's replica runs it: DATABASE_URL at a real PgBouncer in transaction mode
// (which closes a connection that sends statement_timeout at startup), on an empty database. It
// migrates, seeds and serves through the pooler (keys, sign-in, scheduled jobs); two started at once
// migrate once. Without DATABASE_DIRECT_URL it says (output, /api/ready) that it cannot receive
// other processes' invalidations; with it, it receives them by LISTEN on the direct connection.

const pooler = await startPgBouncer();
const ADMIN_PASSWORD = "pooled-admin-password-123";
const folders: string[] = [];
const databases: string[] = [];
const running: Serving[] = [];
afterAll(async () => {
  await Promise.all(running.map((started) => started.stop()));
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
  for (const name of databases) await dropDatabase(name);
});

/** An empty database: its direct URL. */
async function emptyDatabase(): Promise<string> {
  const name = uniqueName("svc_serve_pooled");
  databases.push(name);
  return createDatabase(name);
}

interface Replica {
  started: Serving;
  baseUrl: string;
}

/** `npm start` on a port and data folder of its own, with the secrets replicas share. */
async function npmStart(env: Record<string, string>): Promise<Replica> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-serve-pooled-"));
  folders.push(dataDir);
  const started = serve({
    ...process.env,
    PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
    AUTH_SECRET: TEST_AUTH_SECRET,
    SVC_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    LOG_LEVEL: "info",
    REDIS_URL: "",
    ...env,
  });
  running.push(started);
  const baseUrl = `http://127.0.0.1:${port}`;
  await untilHealthy(started, baseUrl);
  return { started, baseUrl };
}

const fetchOf = (replica: Replica) => ({
  fetch: (p: string, init?: RequestInit) => fetch(new URL(p, replica.baseUrl), init),
});

/** Each migration's records in the database: name and how many times it was recorded. */
async function recordedMigrations(url: string): Promise<{ name: string; n: number }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; n: number }>(
      `SELECT migration_name AS name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY 1 ORDER BY 1`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

/** A key issued by `svc api-keys create` through the same DATABASE_URL, answered by `/api/v1/me` on each replica. */
async function cliKeyAuthenticates(databaseUrl: string, replicas: Replica[]) {
  const created = await svc(
    ["api-keys", "create", "--user", "admin", "--name", uniqueName("pooled"), "--scope", "svc:system:orgs:read"],
    { DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: "" },
  );
  expect(created.code, created.stderr).toBe(0);
  const key = created.stdout.trim();
  for (const replica of replicas) {
    const me = await fetch(`${replica.baseUrl}/api/v1/me`, { headers: { "x-api-key": key } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { username: string } }).user.username).toBe("admin");
  }
}

describe("npm start behind PgBouncer, without a direct connection", { timeout: PROCESS_TEST_TIMEOUT_MS * 2 }, () => {
  let direct: string;
  let replicas: Replica[];
  it("starts two replicas at once on an empty database, which migrate it once and seed one admin", async () => {
    direct = await emptyDatabase();
    const env = { DATABASE_URL: pooler.pooled(direct), DATABASE_DIRECT_URL: "" };
    replicas = await Promise.all([npmStart(env), npmStart(env)]);
    const files = await readMigrations();
    expect(await recordedMigrations(direct)).toEqual(files.map((f) => ({ name: f.name, n: 1 })));
    const created = replicas.filter((r) =>
      r.started.output().includes('Created the first sys_admin: username "admin"'),
    );
    expect(created).toHaveLength(1);
  });

  it("says at start and in /api/ready that it cannot hear other processes", async () => {
    for (const replica of replicas) {
      const body = await untilReady(fetchOf(replica), "none");
      expect(body.warning).toMatch(/set DATABASE_DIRECT_URL or REDIS_URL/);
      expect(replica.started.output()).toMatch(/cannot hear other processes' invalidations/);
    }
  });

  it("serves: a key made by the CLI through the pooler authenticates, the admin signs in, jobs run", async () => {
    await cliKeyAuthenticates(pooler.pooled(direct), replicas);
    expect(await new Browserless(replicas[0]!.baseUrl).signIn("admin", ADMIN_PASSWORD)).toBe(true);
    await vi.waitFor(
      () =>
        expect(replicas.map((r) => r.started.output()).join("")).toMatch(
          /"scheduled job done","job":"message-partitions"/,
        ),
      { timeout: 30_000, interval: 200 },
    );
  });
});

describe("npm start behind PgBouncer with DATABASE_DIRECT_URL", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("migrates, hears invalidations by LISTEN on the direct connection, and serves", async () => {
    const direct = await emptyDatabase();
    const pooled = pooler.pooled(direct);
    const replica = await npmStart({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct });
    expect((await recordedMigrations(direct)).length).toBe((await readMigrations()).length);
    expect(await untilReady(fetchOf(replica), "postgres")).toEqual({ status: "ok", invalidation: "postgres" });
    expect(replica.started.output()).not.toMatch(/cannot hear/);
    await cliKeyAuthenticates(pooled, [replica]);
  });
});
