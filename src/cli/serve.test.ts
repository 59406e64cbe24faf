import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/free-port";
import { Browserless, PROCESS_TEST_TIMEOUT_MS } from "@/test/app";
import { serve, untilHealthy, type Serving } from "@/test/cli";

// `npm start` on the embedded database, killed outright (SIGKILL to its whole process group, as
// the OOM killer or a lost machine would) in the middle of a stream of writes, then started again
// at once on the same data folder: it starts, and every write it acknowledged is there.

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

describe("npm start on the embedded database", () => {
  it(
    "comes back at once after a SIGKILL in the middle of writes, with every acknowledged write",
    async () => {
      const first = await start();
      const session = new Browserless(baseUrl);
      expect(await session.signIn("admin", ADMIN_PASSWORD)).toBe(true);
      const created = await session.fetch("/api/admin/users/api-keys", {
        method: "POST",
        headers: { "content-type": "application/json", origin: baseUrl },
        body: JSON.stringify({ name: "crash", scopes: ["svc:system:orgs:read", "svc:system:orgs:write"] }),
      });
      expect(created.status).toBe(201);
      const { raw_key: key } = (await created.json()) as { raw_key: string };
      const headers = { "x-api-key": key, "content-type": "application/json" };

      // Four writers; a write counts once its 201 has arrived.
      const acknowledged: string[] = [];
      let killed = false;
      const writer = async (id: number) => {
        for (let i = 0; !killed; i++) {
          const name = `crash-${id}-${i}`;
          const response = await fetch(`${baseUrl}/api/v1/organizations`, {
            method: "POST",
            headers,
            body: JSON.stringify({ name }),
          }).catch(() => undefined);
          if (response?.status === 201) acknowledged.push(name);
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 10));
      await first.stop("SIGKILL");
      killed = true;
      await Promise.all(writers);

      const second = await start();
      const names = new Set<string>();
      let cursor: string | null = null;
      do {
        const page = await fetch(`${baseUrl}/api/v1/organizations?limit=100${cursor ? `&cursor=${cursor}` : ""}`, {
          headers,
        });
        expect(page.status).toBe(200);
        const body = (await page.json()) as { data: { name: string }[]; next_cursor: string | null };
        for (const org of body.data) names.add(org.name);
        cursor = body.next_cursor;
      } while (cursor);
      expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
      await second.stop("SIGTERM");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
