import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { Browserless, PROCESS_TEST_TIMEOUT_MS, startApp, TEST_AUTH_SECRET, TEST_ENCRYPTION_KEYS } from "@/test/app";
import { svc } from "@/test/cli";
import { startOldPostgres } from "@/test/old-postgres";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";

// Off the embedded database: data written on PGlite (organizations, users with passwords, API keys,
// an LLM config with its encrypted provider key, messages in two monthly partitions) is dumped by
// PGlite's own pg_dump, restored into a fresh PostgreSQL, and moved into another; both hold it row
// for row, and the app started on the moved one signs the same users in, accepts the same key and
// decrypts the provider key. Each refusal is one line, a non-zero exit, and an untouched target.

process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
process.env.DATABASE_PREPARED_STATEMENTS = "0";
const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-transfer-"));
const { startEmbedded } = await import("./embedded");
const embedded = await startEmbedded(dataDir);
process.env.DATABASE_URL = embedded.url;
afterAll(async () => {
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const [
  { migrate, readMigrations },
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
const { readContext } = await import("./context");

await migrate(embedded.url);
const client = createBaseClient(embedded.url, { poolMax: 2, preparedStatements: false });
makeProcessWide(client);
afterAll(() => client.$disconnect());
await fixtures.seedRoles(client);
const admin = await fixtures.createSysAdmin(client);
const member = await fixtures.createUser(client);
const org = await client.organization.create({ data: { name: "moved-org" }, select: { id: true } });
await client.organization.createMany({ data: Array.from({ length: 5 }, (_, i) => ({ name: `moved-${i}` })) });
const { raw_key } = await keys.createApiKey(readContext(systemActor("test")), admin.id, {
  name: "moved-key",
  scopes: [
    "svc:system:orgs:read",
    "svc:conversations:read",
    "svc:conversations:write",
    "svc:conversations:manage",
    "svc:org:llm_configs:read",
  ],
  expires_at: null,
});
const PROVIDER_KEY = "sk-moved-provider-key-0123456789";
const config = await llm.createLlmConfig(readContext(systemActor("test")), org.id, {
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
// Lines of a message that would read as commands were they outside its string in the dump: psql's,
// a setting the target may not know, and the record of a migration this code does not know.
const FOREIGN_MIGRATION = "29991231000000_from_a_message";
const LINES_LIKE_COMMANDS = [
  "next month:",
  "\\begin{equation} x \\end{equation}",
  "\\! echo",
  "SET unknown_setting = 1;",
  "INSERT INTO public._prisma_migrations VALUES",
  `\t('00000000-0000-0000-0000-000000000002', 'x', now(), '${FOREIGN_MIGRATION}', NULL, NULL, now(), 1);`,
].join("\n");
for (const [created_at, content] of [
  [new Date(), "this month"],
  [nextMonth, LINES_LIKE_COMMANDS],
] as const)
  await client.message.create({
    data: {
      org_id: org.id,
      conv_id: conversation.id,
      turn_id: conversation.id,
      user_id: member.id,
      role: "user",
      content,
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

/** Every table's rows of the app's schemas (public, pgboss) as JSON in a fixed order, and every sequence's position. */
const contents = (url: string) =>
  withClient(url, async (c) => {
    const { rows: tables } = await c.query<{ name: string }>(
      `SELECT format('%I.%I', n.nspname, relname) AS name FROM pg_class JOIN pg_namespace n ON n.oid = relnamespace
         WHERE n.nspname IN ('public', 'pgboss') AND relkind IN ('r', 'p') AND NOT relispartition
         AND relname <> '_prisma_migrations' ORDER BY 1`,
    );
    const all: Record<string, unknown> = {};
    for (const { name } of tables) {
      const { rows } = await c.query(
        `SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text), '[]') AS rows FROM ${name} t`,
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

/** How many tables the database's public schema holds. */
const publicTables = async (url: string) =>
  (await withClient(url, (c) => c.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public'"))).rowCount;

const databases: string[] = [];
afterAll(() => Promise.all(databases.map((name) => dropDatabase(name))));
async function freshDatabase(): Promise<string> {
  const name = uniqueName("svc_transfer");
  databases.push(name);
  return createDatabase(name);
}

// Served, as `npm start` serves it: the app makes its job queue's schema (pgboss) and queues its
// jobs at the start; it is stopped before the dump, so that nothing writes meanwhile.
{
  const app = await startApp(embedded.url, { SVC_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const queued = await withClient(embedded.url, (c) =>
      c.query("SELECT 1 FROM pgboss.job").catch(() => ({ rowCount: 0 })),
    );
    if ((queued.rowCount ?? 0) > 0) break;
    if (Date.now() > deadline) throw new Error(`The app queued no job: ${app.logs()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await app.stop();
}
const source = await contents(embedded.url);
const sourceJobs = (source["pgboss.job"] as unknown[]).length;
const dump = await embedded.dump();

/** `npm run svc -- <args>` on this file's data folder, whose embedded database this process serves. */
const run = (args: string[], env: Record<string, string>) => svc(args, { SVC_DATA_DIR: dataDir, ...env });
const DUMP_FILE = path.join(dataDir, "dump.sql");
await writeFile(DUMP_FILE, dump);

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

  it("dumps through `svc db dump` while this process serves the database, over its dump socket", async () => {
    const file = path.join(dataDir, "served.sql");
    const dumped = await run(["db", "dump", "--out", file], { DATABASE_URL: "" });
    expect(dumped.code, dumped.stderr).toBe(0);
    expect(dumped.stderr).toBe(`Dumped the embedded database to ${file}.`);
    const served = await readFile(file, "utf8");
    expect(served).toContain(admin.username);
    expect(transfer.migrationsInDump(served)).toEqual(transfer.migrationsInDump(dump));
  });

  it("answers dump requests only with the token of its marker file", async () => {
    const marker = JSON.parse(await readFile(path.join(dataDir, "embedded.json"), "utf8")) as {
      dumps: { socket: string; token: string };
    };
    const { default: http } = await import("node:http");
    const post = (authorization: string | undefined) =>
      new Promise<{ status?: number; body: string }>((resolve, reject) => {
        const headers = authorization ? { authorization } : {};
        const request = http.request(
          { socketPath: marker.dumps.socket, path: "/dump", method: "POST", headers },
          (response) => {
            let body = "";
            response.on("data", (chunk: Buffer) => (body += chunk.toString()));
            response.on("end", () => resolve({ status: response.statusCode, body }));
          },
        );
        request.on("error", reject);
        request.end("{}");
      });
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${marker.dumps.token}x`, marker.dumps.token])
      expect(await post(authorization)).toEqual({ status: 404, body: "" });
    const { stat } = await import("node:fs/promises");
    expect((await stat(path.join(dataDir, "embedded.json"))).mode & 0o077).toBe(0);
  });

  let restored = "";
  it("restores the dump into an empty PostgreSQL with `svc db restore`, row for row", async () => {
    // The migrations the dump records are its own rows of `_prisma_migrations`, not a message's.
    expect(transfer.migrationsInDump(dump)).toEqual((await readMigrations()).map((file) => file.name));
    restored = await freshDatabase();
    const restore = await run(["db", "restore", DUMP_FILE], { DATABASE_URL: restored });
    expect(restore.code, restore.stderr).toBe(0);
    expect(sourceJobs).toBeGreaterThan(0);
    expect(await contents(restored)).toEqual(source);
  });

  it("restores a dump of PostgreSQL by the server's pg_dump, which fences it with psql's \\restrict", async () => {
    const file = path.join(dataDir, "postgres.sql");
    const dumped = await run(["db", "dump", "--out", file], { DATABASE_URL: restored });
    expect(dumped.code, dumped.stderr).toBe(0);
    const target = await freshDatabase();
    const restore = await run(["db", "restore", file], { DATABASE_URL: target });
    expect(restore.code, restore.stderr).toBe(0);
    expect(await contents(target)).toEqual(source);
  });

  let moved = "";
  it("moves into an empty PostgreSQL, row for row, sequences set, the embedded data untouched", async () => {
    moved = await freshDatabase();
    const move = await run(["db", "move", "--to", moved], { DATABASE_URL: "" });
    expect(move.code, move.stderr).toBe(0);
    expect(move.stdout).toMatch(/^Moved \d+ rows in \d+ tables into .*; each table's row count matches\.$/m);
    // What to start with: the URL, and the two secrets from the data folder.
    expect(move.stdout).toContain(`  DATABASE_URL=${moved} `);
    expect(move.stdout).toContain(`  AUTH_SECRET=<the contents of ${path.join(dataDir, "auth-secret")}>`);
    expect(move.stdout).toContain(`  SVC_ENCRYPTION_KEYS=<the contents of ${path.join(dataDir, "encryption-keys")}>`);
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
    // Message partitions work: the history reads across both months' partitions and takes a new message.
    const history = `/api/v1/organizations/${org.id}/conversations/${conversation.id}/messages`;
    const headers = { "x-api-key": raw_key, "content-type": "application/json" };
    const appended = await app.fetch(history, {
      method: "POST",
      headers,
      body: JSON.stringify({ messages: [{ role: "user", content: "after the move", turn_id: conversation.id }] }),
    });
    expect(appended.status).toBe(201);
    const read = await app.fetch(history, { headers });
    expect(read.status).toBe(200);
    const { data } = (await read.json()) as { data: { content: string }[] };
    expect(data.map((m) => m.content)).toEqual(["this month", LINES_LIKE_COMMANDS, "after the move"]);
    // The app decrypts the provider key (it shows its last four characters), as does this process.
    const shown = await app.fetch(`/api/v1/organizations/${org.id}/llm-configs/${config.id}`, { headers });
    expect(shown.status).toBe(200);
    expect(((await shown.json()) as { api_key_last4: string | null }).api_key_last4).toBe(PROVIDER_KEY.slice(-4));
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
    const before = await contents(moved);
    for (const refused of [
      await run(["db", "restore", DUMP_FILE], { DATABASE_URL: moved }),
      await run(["db", "move", "--to", moved], { DATABASE_URL: "" }),
    ]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^svc: The target database is not empty \(\d+ tables, views or sequences\): use a new, empty database\.$/,
      );
      expect(await contents(moved)).toEqual(before);
    }
  });

  it("refuses an unreachable target in one line", async () => {
    const unreachable = "postgresql://postgres@127.0.0.1:1/none";
    for (const refused of [
      await run(["db", "move", "--to", unreachable], { DATABASE_URL: "" }),
      await run(["db", "restore", DUMP_FILE], { DATABASE_URL: unreachable }),
    ]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe("svc: Cannot reach PostgreSQL at 127.0.0.1:1 (connection refused).");
    }
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
    expect(await publicTables(target)).toBe(0);
  });

  it("refuses, before writing anything, a dump that would run commands or touch the server's files", async () => {
    const target = await freshDatabase();
    const pwned = path.join(dataDir, "pwned");
    const touch = `COPY (SELECT 1) TO PROGRAM 'touch ${pwned}'`;
    const [first] = await readMigrations();
    // The finding's file: one migration record, then a command.
    const crafted = [
      `INSERT INTO public._prisma_migrations VALUES ('00000000-0000-0000-0000-000000000003', 'x', '2026-01-01', '${first!.name}', NULL, NULL, '2026-01-01', 1);`,
      `${touch};`,
    ].join("\n");
    const refusals: [string, RegExp][] = [
      [crafted, /COPY … PROGRAM at line 2/],
      [`${dump}\n${touch};\n`, /COPY … PROGRAM at line \d+/],
      [`${dump}\nCOPY public.users TO '${pwned}';\n`, /COPY … TO at line \d+/],
      [
        `${dump}\nCREATE FUNCTION public.f() RETURNS int LANGUAGE plpython3u AS $$ import os $$;\n`,
        /CREATE FUNCTION … LANGUAGE plpython3u/,
      ],
      [
        `${dump}\nCREATE FUNCTION public.f() RETURNS int AS '/lib/x.so', 'f' LANGUAGE c;\n`,
        /CREATE FUNCTION … LANGUAGE c/,
      ],
      [`${dump}\nALTER SYSTEM SET archive_command = 'touch ${pwned}';\n`, /ALTER SYSTEM at line/],
      [`${dump}\nDO $$ BEGIN EXECUTE '${touch.replace(/'/g, "''")}'; END $$;\n`, /holds DO at line/],
      [`${dump}\nCREATE ROLE intruder SUPERUSER LOGIN;\n`, /CREATE ROLE at line/],
      [`${dump}\nGRANT pg_execute_server_program TO public;\n`, /GRANT pg_execute_server_program at line/],
      [`${dump}\nLOAD 'evil';\n`, /holds LOAD at line/],
      [`${dump}\nCREATE EXTENSION dblink;\n`, /CREATE EXTENSION dblink/],
      // Hidden: after a string holding a semicolon, after an escape string's quote, in a tagged
      // dollar quote's neighbourhood, after a nested comment, after COPY's data.
      [`${dump}\nINSERT INTO public.organizations (name) VALUES ('a;'); ${touch};\n`, /COPY … PROGRAM/],
      [
        `${dump}\nINSERT INTO public.organizations (name) VALUES (E'\\''); ${touch}; --');\n`,
        /INSERT of anything but literal values/,
      ],
      [`${dump}\nCREATE TABLE public.t$a$ (id int); ${touch}; CREATE TABLE public.u$a$ (id int);\n`, /COPY … PROGRAM/],
      [`${dump}\nCOMMENT ON TABLE public.users IS $x$ $$; $x$; ${touch};\n`, /COPY … PROGRAM/],
      [`${dump}\n/* /* */ ' */ ; ${touch}; --'\n`, /COPY … PROGRAM/],
      [`${dump}\nCOPY public.users (id) FROM stdin;\n1\n\\.\n${touch};\n`, /psql commands/],
      // What comes next: the role back, a function in a row's value, a server file by setval.
      [`${dump}\nRESET ROLE;\n`, /holds RESET ROLE at line/],
      [`${dump}\nSET role = postgres;\n`, /SET role at line/],
      [
        `${dump}\nINSERT INTO public.organizations (name) VALUES (pg_read_file('/etc/passwd'));\n`,
        /INSERT of anything but literal values/,
      ],
      [
        `${dump}\nINSERT INTO public.organizations (name) VALUES ('x'), ((SELECT lo_export(1, '${pwned}')));\n`,
        /INSERT of anything but literal values/,
      ],
      [
        `${dump}\nSELECT pg_catalog.setval('public.x', (SELECT lo_export(1, '${pwned}')), true);\n`,
        /SELECT other than setval/,
      ],
      [`${dump}\nINSERT INTO pg_catalog.pg_authid VALUES ('1');\n`, /INSERT outside the app's schemas/],
    ];
    for (const [tampered, why] of refusals) {
      const refused = await transfer.restoreDump(target, tampered).then(
        () => "restored",
        (error: Error) => error.message,
      );
      expect(refused, tampered.slice(dump.length, dump.length + 200)).toMatch(why);
      expect(await publicTables(target)).toBe(0);
    }
    const { existsSync } = await import("node:fs");
    expect(existsSync(pwned)).toBe(false);
  });

  it("never runs a dump's own functions: a tampered trigger body arrives as the migrations make it", async () => {
    const target = await freshDatabase();
    const pwned = path.join(dataDir, "pwned-trigger");
    const body = /CREATE FUNCTION public\.svc_touch_updated_at\(\)[^$]*\$(\w*)\$/.exec(dump);
    expect(body).not.toBeNull();
    const tampered = dump.replace(
      body![0],
      () => `${body![0]}\nBEGIN COPY (SELECT 1) TO PROGRAM 'touch ${pwned}'; END; -- `,
    );
    expect(tampered).toContain(pwned);
    await transfer.restoreDump(target, tampered);
    await withClient(target, (c) => c.query("UPDATE organizations SET name = name || '!'"));
    const { existsSync } = await import("node:fs");
    expect(existsSync(pwned)).toBe(false);
    const functions = await withClient(target, (c) =>
      c.query<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'svc_touch_updated_at'"),
    );
    expect(functions.rows[0]?.src).not.toContain("PROGRAM");
  });

  it("leaves the target empty when a dump fails part-way through, in one line", async () => {
    const target = await freshDatabase();
    const file = path.join(dataDir, "broken.sql");
    await writeFile(file, `${dump}\nINSERT INTO public.organizations (id, name) VALUES ('not-a-uuid', 'x');\n`);
    const refused = await run(["db", "restore", file], { DATABASE_URL: target });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc: /);
    expect(refused.stderr.split("\n")).toHaveLength(1);
    expect(await publicTables(target)).toBe(0);
  });

  it("refuses a server older than PostgreSQL 14 in one line", async () => {
    const old = await startOldPostgres();
    for (const refused of await Promise.all([
      run(["db", "move", "--to", old], { DATABASE_URL: "" }),
      run(["db", "restore", DUMP_FILE], { DATABASE_URL: old }),
    ])) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe("svc: PostgreSQL 14 or newer is required; the server is PostgreSQL 13.");
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
    const refused = await run(["db", "restore", file], { DATABASE_URL: target });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "svc: The dump is from a newer version of svc (migration 29991231000000_from_the_future is unknown here): upgrade svc first.",
    );
    expect(await publicTables(target)).toBe(0);
    expect(await readFile(file, "utf8")).toBe(newer);
  });
});
