import net from "node:net";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { PROCESS_TEST_TIMEOUT_MS, startApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createDatabase, dropDatabase, uniqueName } from "@/test/postgres";
import { createSysAdmin, seedRoles } from "@/test/fixtures";
import { recordGoodbyes } from "@/test/pg-goodbyes";
import { readContext } from "@/server/db/context";
import { createBaseClient } from "@/server/db/client";

// Graceful shutdown of the app's server (scripts/server.mjs), driven by a SIGTERM as an
// orchestrator sends it. Requests in flight are written over raw sockets, part before the signal
// and the rest after, so the test knows they were in flight when it came.

const { client, url } = await testDatabase();
await seedRoles(client);
// The app's connections carry a name of their own, for the test to tell them from its own.
const APP_CONNECTIONS = "svc-shutdown-test-app";
const appUrl = new URL(url);
appUrl.searchParams.set("application_name", APP_CONNECTIONS);
// Through a forwarder that notes the connections the app closes without PostgreSQL's goodbye.
const goodbyes = await recordGoodbyes(appUrl.toString());
// Best-effort writes are flushed only once a minute here: at shutdown, or never.
const app = await startApp(goodbyes.url, { SVC_BOOKKEEPING_FLUSH_MS: "60000" });
const admin = await createSysAdmin(client);
const key = await createApiKey(readContext(systemActor("test")), admin.id, {
  name: "shutdown",
  scopes: ["svc:system:orgs:write"],
  expires_at: null,
});
const { port } = new URL(app.baseUrl);

/** A request over its own connection, sent in parts; `answer` is the whole response once the server closes the connection. */
function rawRequest(first: string) {
  const socket = net.connect(Number(port), "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString()));
  const answer = new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", ...rest] = received.split("\r\n\r\n");
      // The JSON document, without the chunked encoding's framing around it.
      resolve({
        status: Number(head.split(" ")[1]),
        headers: head,
        body: /\{.*\}/s.exec(rest.join("\r\n\r\n"))?.[0] ?? "",
      });
    });
  });
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return {
    sent: connected.then(() => new Promise<void>((resolve) => socket.write(first, () => resolve()))),
    finish: (rest: string) => socket.write(rest),
    answer,
  };
}

async function until(condition: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 50));
  expect(await condition()).toBe(true);
}

/** Requests counted for the key in api_key_usage, whatever their outcome. */
async function usageCounted(keyId: string): Promise<bigint> {
  return (await client.apiKeyUsage.aggregate({ where: { key_id: keyId }, _sum: { count: true } }))._sum.count ?? 0n;
}

/** The app's connections to its database, as the server sees them. */
async function appConnections(): Promise<number> {
  const [row] = await client.$queryRaw<
    { n: bigint }[]
  >`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ${APP_CONNECTIONS}`;
  return Number(row?.n);
}

/** The job queue's connections (pg-boss names them itself). */
async function queueConnections(): Promise<number> {
  const [row] = await client.$queryRaw<
    { n: bigint }[]
  >`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'svc-queue' AND datname = current_database()`;
  return Number(row?.n);
}

describe("SIGTERM", () => {
  it("turns readiness 503 at once, lets requests in flight finish, flushes pending writes and exits 0", async () => {
    const used = await app.fetch("/api/v1/me", { headers: { "x-api-key": key.raw_key } });
    expect(used.status).toBe(200);
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).last_used_at).toBeNull();

    // In flight when the signal comes: a readiness probe (its headers half sent) and an
    // organization being created (its headers sent, its body half sent).
    const probe = rawRequest("GET /api/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const body = JSON.stringify({ name: "created-while-shutting-down" });
    const creation = rawRequest(
      `POST /api/v1/organizations HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${key.raw_key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await Promise.all([probe.sent, creation.sent]);
    // The server has read what was sent on those connections once a request sent after them (on a
    // connection of its own, not kept alive) has been answered.
    const health = rawRequest("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect((await health.answer).status).toBe(200);
    // Nothing counted is written before the signal; the app holds connections to close.
    expect(await usageCounted(key.id)).toBe(0n);
    expect(await appConnections()).toBeGreaterThan(0);

    const exited = new Promise<number | null>((resolve) => app.process.once("exit", (code) => resolve(code)));
    app.process.kill("SIGTERM");
    await until(() => app.logs().includes("SIGTERM: shutting down"));

    // No new connections once draining.
    await expect(fetch(`${app.baseUrl}/api/health`)).rejects.toThrow();

    probe.finish("\r\n");
    const probed = await probe.answer;
    expect(probed.status).toBe(503);
    expect(probed.headers).toMatch(/^retry-after: \d+$/im);
    expect(JSON.parse(probed.body)).toMatchObject({ code: "unavailable", detail: "The app is shutting down." });

    creation.finish(body.slice(10));
    const created = await creation.answer;
    expect(created.status).toBe(201);
    expect(created.headers).toMatch(/^connection: close$/im);

    expect(await exited).toBe(0);
    expect(await client.organization.count({ where: { name: "created-while-shutting-down" } })).toBe(1);
    // The last_used_at write waiting for its flush was made on the way out.
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).last_used_at).not.toBeNull();
    // So were the usage counts: the two requests made with the key.
    expect(await usageCounted(key.id)).toBe(2n);
    expect(app.logs()).toContain('"msg":"shut down"');
    // Its connections were closed by the app, not dropped by its exit: none is left, and each one
    // ended with the client's goodbye.
    await until(async () => (await appConnections()) === 0);
    expect(goodbyes.dropped()).toEqual([]);
  });

  it("does not wait past its grace period for a client that never finishes its request", async () => {
    const slow = await startApp(url, { SVC_SHUTDOWN_GRACE_MS: "500" });
    const socket = net.connect(Number(new URL(slow.baseUrl).port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.on("error", () => undefined);
    socket.write(
      `POST /api/v1/organizations HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${key.raw_key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name"`,
    );
    // The server has read those headers once a request sent after them has been answered (a busy
    // machine can take longer than any fixed pause).
    expect((await fetch(`${slow.baseUrl}/api/health`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => slow.process.once("exit", (code) => resolve(code)));
    slow.process.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(slow.logs()).toContain("requests still in flight after the grace period are cut");
    socket.destroy();
  });

  it(
    "closes every connection when stopped while the job queue is still starting or setting up",
    async () => {
      const recorded = await recordGoodbyes(url);
      // The queue starts beside the server, then sets up its workers and schedules one by one: a
      // signal as soon as the app answers, and a little later, comes at some moment of that.
      for (const wait of [0, 100, 200, 400]) {
        const early = await startApp(recorded.url);
        const exited = new Promise<number | null>((resolve) => early.process.once("exit", (code) => resolve(code)));
        await new Promise((resolve) => setTimeout(resolve, wait));
        early.process.kill("SIGTERM");
        expect(await exited).toBe(0);
        await until(async () => (await queueConnections()) === 0);
      }
      expect(recorded.dropped()).toEqual([]);
      // Four starts of the app: on a machine busy with the rest of the suite, more than 30 s.
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "lets a job in flight finish before it closes the database, and closes every connection",
    async () => {
      // A database of its own: a job queued at start is queued once a minute at most, and this
      // file's other apps queued them in the file's database already.
      const name = uniqueName("svc_test");
      const ownUrl = await createDatabase(name, inject("templateDatabase"));
      const own = createBaseClient(ownUrl, { poolMax: 2 });
      const lock = new pg.Client({ connectionString: ownUrl });
      try {
        await seedRoles(own);
        const owner = await createSysAdmin(own);
        const expiring = await createApiKey(readContext(systemActor("test"), own), owner.id, {
          name: "expiring",
          scopes: ["svc:system:orgs:read"],
          expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
        });
        // The expiry job's first read waits behind a lock the test holds until the app is shutting down.
        await lock.connect();
        await lock.query("BEGIN; LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE");
        const recorded = await recordGoodbyes(ownUrl);
        // A statement may wait for the lock as long as the test needs.
        const busy = await startApp(recorded.url, { DATABASE_STATEMENT_TIMEOUT_MS: "60000" });
        // Asked on another connection: within a transaction the server's activity reads as it was at its start.
        await until(async () => {
          const [row] = await own.$queryRaw<{ n: bigint }[]>`
            SELECT count(*) AS n FROM pg_stat_activity WHERE datname = ${name} AND wait_event_type = 'Lock'`;
          return Number(row?.n) > 0;
        });
        const exited = new Promise<number | null>((resolve) => busy.process.once("exit", (code) => resolve(code)));
        busy.process.kill("SIGTERM");
        await until(() => busy.logs().includes("SIGTERM: shutting down"));
        // With no request in flight, the shutdown goes on as far as it goes while the job waits.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await lock.query("COMMIT");
        expect(await exited).toBe(0);
        // The job's write landed, and every connection the app made ended with its goodbye.
        const { rows } = await lock.query("SELECT 1 FROM event_marks WHERE key = $1", [`expiring-7d:${expiring.id}`]);
        expect(rows).toHaveLength(1);
        expect(recorded.dropped()).toEqual([]);
      } finally {
        await lock.end();
        await own.$disconnect();
        await dropDatabase(name);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it("shuts down when whatever read its output has gone, instead of failing every log line", async () => {
    const orphan = await startApp(url);
    const exited = new Promise<number | null>((resolve) => orphan.process.once("exit", (code) => resolve(code)));
    // As when the process that started it dies: the other ends of its stdout and stderr close.
    orphan.process.stdout?.destroy();
    orphan.process.stderr?.destroy();
    // Each request is logged: the first line written after that finds no reader.
    await fetch(`${orphan.baseUrl}/api/health`);
    expect(await exited).toBe(0);
  });
});
