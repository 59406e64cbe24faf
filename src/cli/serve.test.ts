import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/free-port";
import { Browserless, PROCESS_TEST_TIMEOUT_MS } from "@/test/app";
import { serve, svc, untilHealthy, type Serving } from "@/test/cli";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";

// `npm start` on the embedded database, killed outright (SIGKILL to its whole process group, as
// the OOM killer or a lost machine would) in the middle of a stream of writes, then started again
// at once on the same data folder: it starts, and every write it acknowledged is there. Backed up
// by `svc db dump` in the middle of a stream of writes: the dump restores into PostgreSQL with
// every write acknowledged before it began, and the app goes on serving.

const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-serve-"));
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const ADMIN_PASSWORD = "crash-test-password-123";

afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** `npm start` on the embedded database in the data folder, once it answers. */
async function start(): Promise<Serving> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    PORT: String(port),
    SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: "warn",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const started = serve(env);
  await untilHealthy(started, baseUrl);
  return started;
}

/** Signs the first admin in and issues a key that may create organizations. */
async function organizationsKey(name: string): Promise<string> {
  const session = new Browserless(baseUrl);
  expect(await session.signIn("admin", ADMIN_PASSWORD)).toBe(true);
  const created = await session.fetch("/api/admin/users/api-keys", {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ name, scopes: ["svc:system:orgs:read", "svc:system:orgs:write"] }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { raw_key: string }).raw_key;
}

/** Four writers creating organizations named `prefix-…` until stopped; a write counts once its 201 has arrived. */
function writeOrganizations(key: string, prefix: string) {
  const acknowledged: string[] = [];
  let stopped = false;
  const writer = async (id: number) => {
    for (let i = 0; !stopped; i++) {
      const name = `${prefix}-${id}-${i}`;
      const response = await fetch(`${baseUrl}/api/v1/organizations`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      }).catch(() => undefined);
      if (response?.status === 201) acknowledged.push(name);
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  return {
    acknowledged,
    /** Resolves once `count` writes in all have been acknowledged. */
    async until(count: number) {
      while (acknowledged.length < count) await new Promise((r) => setTimeout(r, 10));
    },
    async stop() {
      stopped = true;
      await Promise.all(writers);
    },
  };
}

describe("npm start on the embedded database", () => {
  it(
    "comes back at once after a SIGKILL in the middle of writes, with every acknowledged write",
    async () => {
      const first = await start();
      const key = await organizationsKey("crash");
      const writes = writeOrganizations(key, "crash");
      await writes.until(40);
      await first.stop("SIGKILL");
      await writes.stop();

      const second = await start();
      const names = new Set<string>();
      let cursor: string | null = null;
      do {
        const page = await fetch(`${baseUrl}/api/v1/organizations?limit=100${cursor ? `&cursor=${cursor}` : ""}`, {
          headers: { "x-api-key": key },
        });
        expect(page.status).toBe(200);
        const body = (await page.json()) as { data: { name: string }[]; next_cursor: string | null };
        for (const org of body.data) names.add(org.name);
        cursor = body.next_cursor;
      } while (cursor);
      expect(writes.acknowledged.filter((name) => !names.has(name))).toEqual([]);
      await second.stop("SIGTERM");
    },
    // Two starts of the embedded database (the first one creates and migrates it), each of which may
    // take a whole process bound on a busy machine.
    2 * PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "is dumped by `svc db dump` while it serves writes: the dump restores with every write acknowledged before it",
    async () => {
      const app = await start();
      const writes = writeOrganizations(await organizationsKey("dump"), "dump");
      await writes.until(20);
      const before = [...writes.acknowledged];
      const file = path.join(dataDir, "while-serving.sql");
      const dumped = await svc(["db", "dump", "--out", file], { SVC_DATA_DIR: dataDir, DATABASE_URL: "" });
      // The app goes on serving once the dump is done.
      await writes.until(writes.acknowledged.length + 20);
      await writes.stop();
      expect(dumped.code, dumped.stderr).toBe(0);

      const name = uniqueName("svc_serve_dump");
      const target = await createDatabase(name);
      try {
        const restored = await svc(["db", "restore", file], { DATABASE_URL: target });
        expect(restored.code, restored.stderr).toBe(0);
        const client = new pg.Client({ connectionString: target });
        await client.connect();
        const { rows } = await client
          .query<{ name: string }>("SELECT name FROM organizations")
          .finally(() => client.end());
        const names = new Set(rows.map((r) => r.name));
        expect(before.filter((n) => !names.has(n))).toEqual([]);
      } finally {
        await dropDatabase(name);
      }
      await app.stop("SIGTERM");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
