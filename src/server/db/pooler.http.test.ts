// Timeouts as the role's settings: set before anything reads the environment, so that the
// migration below gives this database a short one (the app is given the same).
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "1000";

import pg from "pg";
import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { migrate, readMigrations } from "@/server/db/migrate";
import { createApiKey, revokeApiKey } from "@/server/services/api-keys/service";
import {
  Browserless,
  PROCESS_TEST_TIMEOUT_MS,
  startApp,
  untilKeyCached,
  untilReady,
  type RunningApp,
} from "@/test/app";
import { svc } from "@/test/cli";
import { testDatabase } from "@/test/database";
import { createSysAdmin, createUser, PASSWORD, seedRoles } from "@/test/fixtures";
import { startPgBouncer } from "@/test/pgbouncer";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";
import { readContext } from "@/server/db/context";

// The app behind a real PgBouncer in transaction mode with its default settings (which refuses
// the startup parameters the app used to send, and keeps no session between transactions), as a
// fleet of replicas runs: it starts, serves, keeps its server-side timeouts, and hears what other
// replicas change within a second, through a direct LISTEN connection or through Redis; with
// neither, it says so and caches for at most 5 s. Replicas starting together migrate once.

const { client, url } = await testDatabase();
await seedRoles(client);
await migrate(url); // the role's timeouts in this database (the template's are not copied)
const pooler = await startPgBouncer();
const pooledUrl = pooler.pooled(url);
const admin = await createSysAdmin(client);
const NO_REDIS = { REDIS_URL: "" };
const TIMEOUTS = { DATABASE_STATEMENT_TIMEOUT_MS: "1000" };

const me = (app: RunningApp, key: string) => app.fetch("/api/v1/me", { headers: { "x-api-key": key } });

/** Polls `status` until it is no longer 200 or `ms` have passed since `since`; answers the last status. */
async function statusWithin(ms: number, since: number, status: () => Promise<number>): Promise<number> {
  let last = 200;
  while (last === 200 && Date.now() - since < ms) {
    last = await status();
    await new Promise((r) => setTimeout(r, 20));
  }
  return last;
}

const newKey = (userId: string, name: string) =>
  createApiKey(readContext(systemActor("test")), userId, { name, scopes: ["svc:system:orgs:read"], expires_at: null });

/**
 * Two replicas with `env` hearing invalidations by `route`: a revoke, a deleted owner and a password
 * change made on `a` reach `b` within a second, and a revoke by the CLI reaches both.
 */
function changesReachTheOther(env: Record<string, string>, route: string) {
  let a: RunningApp;
  let b: RunningApp;
  let adminSession: Browserless;
  it("starts both replicas behind the pooler", async () => {
    [a, b] = await Promise.all([startApp(pooledUrl, env), startApp(pooledUrl, env)]);
    for (const app of [a, b]) await untilReady(app, route);
    adminSession = new Browserless(a.baseUrl);
    expect(await adminSession.signIn(admin.username, PASSWORD)).toBe(true);
  });

  it("refuses on one replica a key revoked on the other within a second", async () => {
    const { id, raw_key } = await newKey(admin.id, "revoked-on-a");
    await untilKeyCached(b, () => me(b, raw_key));
    expect((await adminSession.fetch(`/api/admin/users/api-keys/${id}`, { method: "DELETE" })).status).toBe(200);
    expect(await statusWithin(1000, Date.now(), async () => (await me(b, raw_key)).status)).toBe(401);
  });

  it("refuses the key of an owner deleted on the other replica within a second", async () => {
    const owner = await createSysAdmin(client);
    const { raw_key } = await newKey(owner.id, "owner-deleted-on-a");
    await untilKeyCached(b, () => me(b, raw_key));
    expect((await adminSession.fetch(`/api/v1/users/${owner.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await statusWithin(1000, Date.now(), async () => (await me(b, raw_key)).status)).toBe(401);
  });

  it("ends a session on one replica within a second of a password change on the other", async () => {
    const user = await createUser(client);
    const session = new Browserless(b.baseUrl);
    expect(await session.signIn(user.username, PASSWORD)).toBe(true);
    for (let i = 0; i < 3; i++) expect((await session.fetch("/api/v1/me")).status).toBe(200);
    const changed = await adminSession.fetch(`/api/v1/users/${user.id}/password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "a-brand-new-password-42" }),
    });
    expect(changed.status).toBe(200);
    expect(await statusWithin(1000, Date.now(), async () => (await session.fetch("/api/v1/me")).status)).toBe(401);
  });

  it("refuses on both replicas a key revoked by `svc api-keys revoke` within a second of its return", async () => {
    const { id, raw_key } = await newKey(admin.id, "revoked-by-cli");
    for (const app of [a, b]) await untilKeyCached(app, () => me(app, raw_key));
    const revoked = await svc(["api-keys", "revoke", id], { ...env, DATABASE_URL: pooledUrl });
    expect(revoked.code, revoked.stderr).toBe(0);
    const since = Date.now();
    for (const app of [a, b])
      expect(await statusWithin(1000, since, async () => (await me(app, raw_key)).status)).toBe(401);
  });
}

describe("replicas behind PgBouncer with a direct connection for LISTEN", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  changesReachTheOther({ ...NO_REDIS, ...TIMEOUTS, DATABASE_DIRECT_URL: url }, "postgres");
});

describe("replicas behind PgBouncer sharing Redis", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  changesReachTheOther(
    {
      ...TIMEOUTS,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      REDIS_KEY_PREFIX: `${uniqueName("svc-pooler")}:`,
    },
    "redis",
  );
});

describe("an app behind PgBouncer alone", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let app: RunningApp;
  it("says at start and in /api/ready that it cannot hear other processes", async () => {
    app = await startApp(pooledUrl, { ...NO_REDIS, ...TIMEOUTS });
    const body = await untilReady(app, "none");
    expect(body.warning).toMatch(/DATABASE_DIRECT_URL or REDIS_URL/);
    expect(app.logs()).toMatch(/cannot hear other processes' invalidations/);
  });

  it("keeps a cached key no longer than 5 s after it was revoked elsewhere", async () => {
    const { id, raw_key } = await newKey(admin.id, "revoked-unheard");
    await untilKeyCached(app, () => me(app, raw_key));
    await revokeApiKey(readContext(systemActor("test")), id);
    expect(await statusWithin(5_000, Date.now(), async () => (await me(app, raw_key)).status)).toBe(401);
  });

  it("keeps an owner's cached grants no longer than 5 s after one was taken elsewhere", async () => {
    const owner = await createSysAdmin(client);
    const { raw_key } = await createApiKey(readContext(systemActor("test")), owner.id, {
      name: "grant-taken-unheard",
      scopes: ["svc:system:users:read"],
      expires_at: null,
    });
    const users = () => app.fetch("/api/v1/users", { headers: { "x-api-key": raw_key } });
    await untilKeyCached(app, users);
    await client.userRole.deleteMany({ where: { user_id: owner.id } });
    expect(await statusWithin(5_000, Date.now(), async () => (await users()).status)).toBe(403);
  });

  it("has its statement timeout applied by the server through the pooler: 503, nothing left waiting", async () => {
    const through = new pg.Client({ connectionString: pooledUrl });
    await through.connect();
    try {
      expect((await through.query("SHOW statement_timeout")).rows[0]).toEqual({ statement_timeout: "1s" });
      const idle = await through.query("SHOW idle_in_transaction_session_timeout");
      expect(idle.rows[0]).toEqual({ idle_in_transaction_session_timeout: "10s" });
    } finally {
      await through.end();
    }
    const { raw_key } = await newKey(admin.id, "slow");
    await untilKeyCached(app, () => me(app, raw_key));
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE organizations IN ACCESS EXCLUSIVE MODE");
      const response = await app.fetch("/api/v1/organizations", { headers: { "x-api-key": raw_key } });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe("unavailable");
      // The server cancelled the statement: no connection of the pooler still waits on the lock.
      const { rows } = await holder.query<{ waiting: number }>(
        "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      expect(rows[0]?.waiting).toBe(0);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    expect((await app.fetch("/api/v1/organizations", { headers: { "x-api-key": raw_key } })).status).toBe(200);
  });
});

describe("replicas migrating at once through PgBouncer", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("apply each migration once, without a direct connection", async () => {
    const name = uniqueName("svc_pooled_migrate");
    const empty = await createDatabase(name);
    try {
      const env = { DATABASE_URL: pooler.pooled(empty), DATABASE_DIRECT_URL: "" };
      const runs = await Promise.all([svc(["migrate"], env), svc(["migrate"], env)]);
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const files = await readMigrations();
      const applied = runs.map((run) => Number(/Applied (\d+) migration/.exec(run.stdout)?.[1] ?? 0));
      expect(applied.reduce((sum, n) => sum + n, 0)).toBe(files.length);
      const check = new pg.Client({ connectionString: empty });
      await check.connect();
      try {
        const { rows } = await check.query<{ migration_name: string }>(
          `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`,
        );
        expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
      } finally {
        await check.end();
      }
    } finally {
      await dropDatabase(name);
    }
  });
});
