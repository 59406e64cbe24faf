import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createBaseClient } from "./client";
import { processStatus, runningEmbedded, startEmbedded } from "./embedded";
import { migrate, readMigrations } from "./migrate";
import { seed } from "@/server/seed/seed";

// The zero-setup path: the same migrations and queries on PGlite served over a loopback socket.
const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-embedded-"));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("embedded database", () => {
  it("migrates, seeds and keeps its data across restarts", async () => {
    const first = await startEmbedded(dataDir);
    try {
      const result = await migrate(first.url);
      expect(result.applied).toEqual((await readMigrations()).map((m) => m.name));
      const client = createBaseClient(first.url, { poolMax: 2, preparedStatements: false });
      const seeded = await seed(client, { username: "admin" });
      expect(seeded.createdAdmin?.username).toBe("admin");
      const org = await client.organization.create({ data: { name: "Acme" } });
      expect(org.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      await client.$disconnect();
    } finally {
      await first.stop();
    }

    const second = await startEmbedded(dataDir);
    try {
      expect((await migrate(second.url)).applied).toEqual([]);
      const client = createBaseClient(second.url, { poolMax: 2, preparedStatements: false });
      expect(await client.organization.findMany({ select: { name: true } })).toEqual([{ name: "Acme" }]);
      expect((await seed(client, { username: "admin" })).createdAdmin).toBeUndefined();
      await client.$disconnect();
    } finally {
      await second.stop();
    }
  });

  it("keeps each client's query whole when clients and a dump share its one session", async () => {
    const db = await startEmbedded(path.join(dataDir, "shared-session"));
    const clients = [0, 1, 2, 3].map(() => new pg.Client({ connectionString: db.url }));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      // Unnamed statements of different shapes: a Bind that met another client's Parse (the unnamed
      // statement is the session's) would fail on its parameters, or answer the other's query.
      const answers = await Promise.all([
        ...clients.map(async (client, n) => {
          for (let i = 0; i < 150; i++) {
            const { rows } =
              n % 2 === 0
                ? await client.query<{ v: number }>("SELECT $1::int + $2::int AS v", [i, n])
                : await client.query<{ v: number }>("SELECT length($1::text) AS v", ["x".repeat(i)]);
            if (rows[0]?.v !== (n % 2 === 0 ? i + n : i)) return `client ${n} got ${JSON.stringify(rows)} at ${i}`;
          }
          return "ok";
        }),
        (async () => {
          for (let i = 0; i < 5; i++) await db.dump({});
          return "ok";
        })(),
      ]);
      expect(answers).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
      await db.stop();
    }
  });

  it("is found by other processes while it runs, and not after it stops", async () => {
    const db = await startEmbedded(dataDir);
    // The marker names this process, which counts as "another" only from outside it.
    expect(await runningEmbedded(dataDir)).toBeUndefined();
    await db.stop();
    expect(await runningEmbedded(dataDir)).toBeUndefined();
  });
});

describe("a marker left behind", () => {
  // Processes of this test's own stand for the app that wrote the marker (read through /proc, as on
  // the Linux machines the app runs on), and a listener for its address.
  const markerDir = path.join(dataDir, "markers");
  const listener = net.createServer((socket) => socket.destroy());
  const spawned: number[] = [];
  afterAll(() => {
    for (const pid of spawned) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    listener.close();
  });

  async function sleeper(): Promise<number> {
    // `sleep 0` finishes at once, and its parent (exec'd into `sleep 30`) never reaps it: a zombie.
    const child = spawn("sh", ["-c", "sleep 0 & exec sleep 30"], { stdio: "ignore" });
    if (child.pid === undefined) throw new Error("could not spawn");
    spawned.push(child.pid);
    return child.pid;
  }

  async function zombieOf(parent: number): Promise<number> {
    for (let i = 0; i < 100; i++) {
      const children = (await readFile(`/proc/${parent}/task/${parent}/children`, "utf8").catch(() => "")).trim();
      const pid = Number(children.split(" ")[0]);
      if (pid && (await processStatus(pid))?.state === "Z") return pid;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("no zombie appeared");
  }

  async function marker(pid: number, startTime: number | undefined, port: number): Promise<string | undefined> {
    await mkdir(markerDir, { recursive: true });
    await writeFile(
      path.join(markerDir, "embedded.json"),
      JSON.stringify({ url: `postgresql://postgres@127.0.0.1:${port}/postgres`, pid, startTime }),
    );
    return runningEmbedded(markerDir);
  }

  it("is stale once its process is gone, not reaped yet, not ours, or its address does not answer", async () => {
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const open = (listener.address() as net.AddressInfo).port;
    const live = await sleeper();
    const liveStart = (await processStatus(live))?.startTime;
    // Believed: a live process of ours, at an address that answers.
    expect(await marker(live, liveStart, open)).toBe(`postgresql://postgres@127.0.0.1:${open}/postgres`);
    // A killed process that its parent has not reaped yet.
    expect(await marker(await zombieOf(live), liveStart, open)).toBeUndefined();
    // A PID now used by another process (another start time).
    expect(await marker(live, (liveStart ?? 0) - 1, open)).toBeUndefined();
    // The right process, but nothing answers at its address.
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    expect(await marker(live, liveStart, closed)).toBeUndefined();
    // A process that is gone altogether.
    process.kill(live, "SIGKILL");
    await vi.waitFor(async () => expect(await processStatus(live)).toBeUndefined(), { timeout: 5_000 });
    expect(await marker(live, liveStart, open)).toBeUndefined();
  });
});
