import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { Browserless, PROCESS_TEST_TIMEOUT_MS, startApp, TEST_AUTH_SECRET, TEST_ENCRYPTION_KEYS } from "@/test/app";
import { startOldPostgres } from "@/test/old-postgres";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";

// Off the embedded database: data written on PGlite (organizations, users with passwords, API keys,
// an LLM config with its encrypted provider key, messages in two monthly partitions) is dumped by
// PGlite's own pg_dump, restored into a fresh PostgreSQL, and moved into another; both hold it row
// for row, and the app started on the moved one signs the same users in, accepts the same key and
// decrypts the provider key. Each refusal is one line, a non-zero exit, and an untouched target.

process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
process.env.DATABASE_PREPARED_STATEMENTS = "0";
process.env.DATABASE_PIPELINE = "0";
const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-transfer-"));
const { startEmbedded } = await import("./embedded");
const embedded = await startEmbedded(dataDir);
process.env.DATABASE_URL = embedded.url;
afterAll(async () => {
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const [
  { migrate },
  { createBaseClient, useBaseClient: makeProcessWide },
  fixtures,
  keys,
  llm,
  { systemActor },
  crypto,
  transfer,
] = await Promise.all([
  import("./migrate"),
  import("./client"),
  import("@/test/fixtures"),
  import("@/server/services/api-keys/service"),
  import("@/server/services/llm-configs/service"),
  import("@/server/auth/actor"),
  import("@/server/crypto/secret-box"),
  import("./transfer"),
]);
const { keyRing } = await import("@/server/crypto/key-ring");

await migrate(embedded.url);
const client = createBaseClient(embedded.url, { poolMax: 2, preparedStatements: false, pipeline: false });
makeProcessWide(client);
afterAll(() => client.$disconnect());
await fixtures.seedRoles(client);
const admin = await fixtures.createSysAdmin(client);
const member = await fixtures.createUser(client);
const org = await client.organization.create({ data: { name: "moved-org" }, select: { id: true } });
await client.organization.createMany({ data: Array.from({ length: 5 }, (_, i) => ({ name: `moved-${i}` })) });
const { raw_key } = await keys.createApiKey(systemActor("test"), admin.id, {
  name: "moved-key",
  scopes: ["svc:system:orgs:read"],
  expires_at: null,
});
const PROVIDER_KEY = "sk-moved-provider-key-0123456789";
const config = await llm.createLlmConfig(systemActor("test"), org.id, {
  name: "moved-llm",
  provider: "openai",
  api_key: PROVIDER_KEY,
  additional_config: {},
  is_enabled: true,
});
const conversation = await client.conversation.create({
  data: { org_id: org.id, user_id: member.id, title: "moved" },
  select: { id: true },
});
// This month's partition and next month's.
const nextMonth = new Date();
nextMonth.setUTCDate(1);
nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
for (const created_at of [new Date(), nextMonth])
  await client.message.create({
    data: {
      org_id: org.id,
      conv_id: conversation.id,
      turn_id: conversation.id,
      user_id: member.id,
      role: "user",
      content: "hello",
      created_at,
    },
  });

const withClient = async <T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
};

/** Every table's rows (as JSON, in a fixed order) and every sequence's position. */
const contents = (url: string) =>
  withClient(url, async (c) => {
    const { rows: tables } = await c.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')
         AND relname <> '_prisma_migrations' ORDER BY 1`,
    );
    const all: Record<string, unknown> = {};
    for (const { name } of tables) {
      const { rows } = await c.query(
        `SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text), '[]') AS rows FROM public."${name}" t`,
      );
      all[name] = rows[0]?.rows;
    }
    const { rows: sequences } = await c.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S' ORDER BY 1`,
    );
    for (const { name } of sequences)
      all[`sequence ${name}`] = (await c.query(`SELECT last_value, is_called FROM public."${name}"`)).rows[0];
    return all;
  });

const databases: string[] = [];
afterAll(() => Promise.all(databases.map((name) => dropDatabase(name))));
async function freshDatabase(): Promise<string> {
  const name = uniqueName("svc_transfer");
  databases.push(name);
  return createDatabase(name);
}

const source = await contents(embedded.url);
const dump = await embedded.dump();

/** `npm run svc -- <args>` as a child process. */
function svc(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "--import", "./scripts/server-only.mjs", "src/cli/main.ts", ...args],
      { env: { ...process.env, SVC_DATA_DIR: dataDir, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr: stderr.trim() }));
  });
}

describe("off the embedded database", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("waits for a transaction another connection holds open, and dumps nothing uncommitted", async () => {
    const writer = new pg.Client({ connectionString: embedded.url });
    await writer.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("INSERT INTO organizations (name) VALUES ('uncommitted-during-dump')");
      const dumping = embedded.dump();
      await new Promise((r) => setTimeout(r, 100));
      await writer.query("ROLLBACK");
      expect(await dumping).not.toContain("uncommitted-during-dump");
    } finally {
      await writer.end();
    }
    expect(dump).toMatch(/INSERT INTO public\.api_keys/);
  });

  it("dumps through `svc db dump` while this process serves the database, over its loopback port", async () => {
    const file = path.join(dataDir, "served.sql");
    const run = await svc(["db", "dump", "--out", file], { DATABASE_URL: "" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(`Dumped the embedded database to ${file}.`);
    const served = await readFile(file, "utf8");
    expect(served).toContain(admin.username);
    expect(transfer.migrationsInDump(served)).toEqual(transfer.migrationsInDump(dump));
  });

  it("answers dump requests only with the token of its marker file", async () => {
    const marker = JSON.parse(await readFile(path.join(dataDir, "embedded.json"), "utf8")) as {
      dumps: { url: string; token: string };
    };
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${marker.dumps.token}x`, marker.dumps.token]) {
      const response = await fetch(marker.dumps.url, {
        method: "POST",
        headers: authorization ? { authorization } : {},
        body: "{}",
      });
      expect(response.status).toBe(404);
      expect(await response.text()).toBe("");
    }
    const { stat } = await import("node:fs/promises");
    expect((await stat(path.join(dataDir, "embedded.json"))).mode & 0o077).toBe(0);
  });

  it("restores the dump into an empty PostgreSQL, row for row", async () => {
    const target = await freshDatabase();
    await transfer.restoreDump(target, dump);
    expect(await contents(target)).toEqual(source);
  });

  let moved = "";
  it("moves into an empty PostgreSQL, row for row, sequences set, the embedded data untouched", async () => {
    moved = await freshDatabase();
    const { tables } = await transfer.moveDatabase({ url: embedded.url, dump: (o) => embedded.dump(o) }, moved);
    expect(tables.api_keys).toBe(1);
    expect(tables.messages).toBe(2);
    expect(await contents(moved)).toEqual(source);
    expect(await contents(embedded.url)).toEqual(source);
    const partitions = await withClient(moved, (c) =>
      c.query<{ part: string }>("SELECT DISTINCT tableoid::regclass::text AS part FROM messages ORDER BY 1"),
    );
    expect(partitions.rows).toHaveLength(2);
    expect(partitions.rows.every((r) => r.part !== "messages_default")).toBe(true);
  });

  it("serves the moved data: the same password signs in, the same key authenticates, the provider key decrypts", async () => {
    const app = await startApp(moved, { AUTH_SECRET: TEST_AUTH_SECRET, SVC_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS });
    expect(await new Browserless(app.baseUrl).signIn(admin.username, fixtures.PASSWORD)).toBe(true);
    expect(await new Browserless(app.baseUrl).signIn(member.username, fixtures.PASSWORD)).toBe(true);
    expect(await new Browserless(app.baseUrl).signIn(member.username, "not-the-password")).toBe(false);
    const me = await app.fetch("/api/v1/me", { headers: { "x-api-key": raw_key } });
    expect(me.status).toBe(200);
    const stored = await withClient(moved, (c) =>
      c.query<{ api_key: string; org_id: string }>(
        "SELECT api_key, org_id FROM organization_llm_configs WHERE id = $1",
        [config.id],
      ),
    );
    const row = stored.rows[0];
    expect(row).toBeDefined();
    expect(crypto.decrypt(keyRing(), row!.api_key, `organization_llm_configs:${config.id}:${row!.org_id}`)).toBe(
      PROVIDER_KEY,
    );
    // Stopped, so that its bookkeeping (key usage) writes nothing after this test.
    await app.stop();
  });

  it("refuses a target that is not empty, in one line, changing nothing", async () => {
    const file = path.join(dataDir, "dump.sql");
    await writeFile(file, dump);
    const before = await contents(moved);
    const run = await svc(["db", "restore", file], { DATABASE_URL: moved });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: The target database is not empty/);
    expect(run.stderr.split("\n")).toHaveLength(1);
    expect(await contents(moved)).toEqual(before);
    const move = await svc(["db", "move", "--to", moved], { DATABASE_URL: "" });
    expect(move.code).toBe(1);
    expect(move.stderr).toMatch(/^svc: The target database is not empty/);
  });

  it("refuses an unreachable target in one line", async () => {
    const run = await svc(["db", "move", "--to", "postgresql://postgres@127.0.0.1:1/none"], { DATABASE_URL: "" });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("svc: Cannot reach PostgreSQL at 127.0.0.1:1 (connection refused).");
  });

  it("refuses a dump holding psql commands (which could run a shell under psql), writing nothing", async () => {
    const target = await freshDatabase();
    for (const tampered of [
      `${dump}\n\\! touch pwned\n`,
      dump.replace(/^SET /m, "COPY public.users (id) FROM stdin;\nSET "),
    ]) {
      await expect(transfer.restoreDump(target, tampered)).rejects.toThrow(
        "The dump holds psql commands: make it with `npm run svc -- db dump`.",
      );
    }
    const tables = await withClient(target, (c) => c.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public'"));
    expect(tables.rowCount).toBe(0);
  });

  it("refuses a server older than PostgreSQL 14 in one line", async () => {
    const old = await startOldPostgres();
    const file = path.join(dataDir, "dump.sql");
    await writeFile(file, dump);
    for (const run of await Promise.all([
      svc(["db", "move", "--to", old], { DATABASE_URL: "" }),
      svc(["db", "restore", file], { DATABASE_URL: old }),
    ])) {
      expect(run.code).toBe(1);
      expect(run.stderr).toBe("svc: PostgreSQL 14 or newer is required; the server is PostgreSQL 13.");
    }
  });

  it("refuses a dump from a newer schema than the code, writing nothing", async () => {
    const target = await freshDatabase();
    const newer = dump.replace(
      /(INSERT INTO public\._prisma_migrations VALUES\n?)/,
      `$1\t('00000000-0000-0000-0000-000000000001', 'x', now(), '29991231000000_from_the_future', NULL, NULL, now(), 1),\n`,
    );
    expect(newer).toContain("29991231000000_from_the_future");
    const file = path.join(dataDir, "newer.sql");
    await writeFile(file, newer);
    const run = await svc(["db", "restore", file], { DATABASE_URL: target });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "svc: The dump is from a newer version of svc (migration 29991231000000_from_the_future is unknown here): upgrade svc first.",
    );
    const tables = await withClient(target, (c) => c.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public'"));
    expect(tables.rowCount).toBe(0);
    expect(await readFile(file, "utf8")).toBe(newer);
  });
});
