import { spawn, spawnSync } from "node:child_process";
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createBaseClient } from "./client";
import { processStatus, runningEmbedded, startEmbedded } from "./embedded";
import { migrate, readMigrations } from "./migrate";
import { seed } from "@/server/seed/seed";
import { svc } from "@/test/cli";

// The zero-setup path: the same migrations and queries on PGlite served over a Unix socket that
// only the app's OS user can reach.
const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-embedded-"));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("embedded database", () => {
  // Two starts of PGlite and every migration: seconds alone, more beside the other test files.
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
  }, 90_000);

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

describe("who can reach it", () => {
  // The tests run as root here and in CI: a child process switched to `nobody` stands for another
  // local user. Run as anyone else, they check what needs no second user (modes, owners, no TCP).
  const asRoot = process.getuid?.() === 0;
  const nobody = { uid: 65534, gid: 65534 };
  const root = path.join(dataDir, "reach");
  const TIMEOUT_MS = 120_000;

  /** A data folder in a folder others may enter (as a project's folder is), not yet made. */
  async function openParent(name: string): Promise<string> {
    const parent = path.join(root, name);
    await mkdir(parent, { recursive: true });
    await chmod(root, 0o755);
    await chmod(parent, 0o755);
    return path.join(parent, "data");
  }

  /** Each probe as `nobody`: "ok", or the error's code (EACCES, ENOENT…). */
  function asNobody(probes: ["read" | "connect", string][]): Record<string, string> {
    const script = `
      const fs = require("node:fs"), net = require("node:net");
      const probes = JSON.parse(process.argv[1]), results = {};
      let pending = probes.length;
      const done = (key, value) => { results[key] = value; if (--pending === 0) console.log(JSON.stringify(results)); };
      for (const [kind, file] of probes) {
        const key = kind + " " + file;
        if (kind === "read") {
          try { fs.readFileSync(file); done(key, "ok"); } catch (e) { done(key, e.code); }
        } else {
          const socket = net.connect({ path: file });
          socket.once("connect", () => { socket.destroy(); done(key, "ok"); });
          socket.once("error", (e) => done(key, e.code));
        }
      }`;
    const child = spawnSync(process.execPath, ["-e", script, JSON.stringify(probes)], {
      ...nobody,
      cwd: "/",
      encoding: "utf8",
      timeout: 20_000,
    });
    if (child.status !== 0) throw new Error(`the probe as nobody failed: ${child.stderr}`);
    return JSON.parse(child.stdout) as Record<string, string>;
  }

  /** Every entry under `dir`, not following symlinks. */
  async function entries(dir: string): Promise<{ file: string; mode: number; uid: number; kind: string }[]> {
    const found: { file: string; mode: number; uid: number; kind: string }[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const info = await lstat(file);
      const kind = info.isDirectory() ? "dir" : info.isFile() ? "file" : info.isSocket() ? "socket" : "other";
      found.push({ file, mode: info.mode & 0o777, uid: info.uid, kind });
      if (kind === "dir") found.push(...(await entries(file)));
    }
    return found;
  }

  /** Inodes of the TCP sockets this process listens on (Linux). */
  async function tcpListeners(): Promise<Set<string>> {
    const listening = new Set<string>();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      const lines = (await readFile(table, "utf8").catch(() => "")).trim().split("\n").slice(1);
      for (const line of lines) {
        const fields = line.trim().split(/\s+/);
        if (fields[3] === "0A") listening.add(fields[9] ?? ""); // state LISTEN; inode
      }
    }
    const own = new Set<string>();
    for (const fd of await readdir("/proc/self/fd")) {
      const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && listening.has(inode)) own.add(inode);
    }
    return own;
  }

  const socketOf = (url: string) => path.join(new URL(url).searchParams.get("host") ?? "", ".s.PGSQL.5432");

  it(
    "started under umask 0 on an older, open data folder: folders 0700, files 0600, sockets owner-only; other users get EACCES",
    async () => {
      const dir = await openParent("open");
      // An older start, as it left the folder: readable (and here writable) by all.
      const previous = process.umask(0);
      try {
        await mkdir(path.join(dir, "pglite"), { recursive: true, mode: 0o777 });
        await writeFile(path.join(dir, "auth-secret"), "old-secret", { mode: 0o666 });
        await writeFile(path.join(dir, "pglite", "left-over"), "x", { mode: 0o666 });
        const db = await startEmbedded(dir);
        try {
          expect((await lstat(dir)).mode & 0o777).toBe(0o700);
          const all = await entries(dir);
          expect(all.filter((e) => e.kind === "dir" && e.mode !== 0o700)).toEqual([]);
          expect(all.filter((e) => e.kind === "file" && e.mode !== 0o600)).toEqual([]);
          const sockets = all.filter((e) => e.kind === "socket");
          expect(sockets.map((e) => path.basename(e.file)).sort()).toEqual([".s.PGSQL.5432", "dump.sock"]);
          expect(sockets.filter((e) => (e.mode & 0o077) !== 0)).toEqual([]);
          expect(socketOf(db.url)).toBe(path.join(dir, "socket", ".s.PGSQL.5432"));
          // Files PGlite makes while it serves are owner-only too.
          const client = new pg.Client({ connectionString: db.url });
          await client.connect();
          await client.query("CREATE TABLE made_later (id int)");
          await client.end();
          const later = await entries(path.join(dir, "pglite"));
          expect(later.filter((e) => e.kind === "file" && e.mode !== 0o600)).toEqual([]);

          if (asRoot) {
            const authid = path.join(dir, "pglite", "global", "1260"); // pg_authid: roles and their passwords
            expect(all.some((e) => e.file === authid)).toBe(true);
            const probes: ["read" | "connect", string][] = [
              ["connect", path.join(dir, "socket", ".s.PGSQL.5432")],
              ["connect", path.join(dir, "socket", "dump.sock")],
              ["read", authid],
              ["read", path.join(dir, "embedded.json")],
              ["read", path.join(dir, "auth-secret")],
            ];
            const results = asNobody(probes);
            expect(results).toEqual(Object.fromEntries(probes.map(([kind, file]) => [`${kind} ${file}`, "EACCES"])));
          }
        } finally {
          await db.stop();
        }
        // And as PGlite left them once closed.
        const closed = await entries(dir);
        expect(closed.filter((e) => e.kind === "file" && e.mode !== 0o600)).toEqual([]);
      } finally {
        process.umask(previous);
      }
    },
    TIMEOUT_MS,
  );

  it(
    "listens on no TCP port; the CLI finds its socket and dump socket through the marker",
    async () => {
      const dir = await openParent("cli");
      const before = await tcpListeners();
      const db = await startEmbedded(dir);
      try {
        const opened = [...(await tcpListeners())].filter((inode) => !before.has(inode));
        expect(opened).toEqual([]);
        const marker = JSON.parse(await readFile(path.join(dir, "embedded.json"), "utf8")) as {
          url: string;
          dumps: { socket: string; token: string };
        };
        expect(marker.url).toBe(db.url);
        expect(new URL(marker.url).searchParams.get("host")).toBe(path.join(dir, "socket"));
        expect(marker.dumps.socket).toBe(path.join(dir, "socket", "dump.sock"));
        // Another process (the CLI while the app runs) migrates through the socket and dumps through the other.
        const env = { SVC_DATA_DIR: dir, DATABASE_URL: "" };
        const migrated = await svc(["migrate"], env);
        expect(migrated.stderr).toBe("");
        expect(migrated.stdout).toMatch(/Applied \d+ migration/);
        const dumped = await svc(["db", "dump"], env);
        expect(dumped.stderr).toBe("");
        expect(dumped.stdout).toContain("_prisma_migrations");
      } finally {
        await db.stop();
      }
    },
    TIMEOUT_MS,
  );

  it(
    "refuses a symlink planted where its socket folder goes, and leaves its target alone",
    async () => {
      const dir = await openParent("symlink");
      const elsewhere = await mkdtemp(path.join(os.tmpdir(), "svc-attacker-"));
      if (asRoot) await chown(elsewhere, nobody.uid, nobody.gid);
      try {
        await mkdir(dir, { mode: 0o700 });
        await symlink(elsewhere, path.join(dir, "socket"));
        await expect(startEmbedded(dir)).rejects.toThrow(/socket folder .* is not a folder .*: remove it/);
        expect(await readdir(elsewhere)).toEqual([]);
        await expect(lstat(path.join(dir, "pglite"))).rejects.toThrow(/ENOENT/); // the database was not opened
      } finally {
        await rm(elsewhere, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );

  it(
    "narrows its own wide socket folder, and refuses one (or any file in the data folder) another user owns",
    async () => {
      const dir = await openParent("owners");
      await mkdir(path.join(dir, "socket"), { recursive: true });
      await chmod(path.join(dir, "socket"), 0o777);
      const db = await startEmbedded(dir);
      await db.stop();
      expect((await lstat(path.join(dir, "socket"))).mode & 0o777).toBe(0o700);
      if (asRoot) {
        await chown(path.join(dir, "socket"), nobody.uid, nobody.gid);
        await expect(startEmbedded(dir)).rejects.toThrow(/belongs to another user \(uid 65534\)/);
        await chown(path.join(dir, "socket"), 0, 0);
        await writeFile(path.join(dir, "pglite", "planted"), "x");
        await chown(path.join(dir, "pglite", "planted"), nobody.uid, nobody.gid);
        await expect(startEmbedded(dir)).rejects.toThrow(/planted in the data folder belongs to another user/);
      }
    },
    TIMEOUT_MS,
  );

  it(
    "refuses a data folder another user made (or linked to) first in a folder open to all",
    async () => {
      // As SVC_DATA_DIR under a shared temporary folder would be: another user gets there first.
      const shared = path.join(root, "shared");
      await mkdir(shared, { recursive: true });
      await chmod(shared, 0o1777);
      const taken = path.join(shared, "data");
      await mkdir(taken);
      await chmod(taken, 0o777);
      const linked = path.join(shared, "linked");
      await symlink(taken, linked);
      if (asRoot) {
        await chown(taken, nobody.uid, nobody.gid);
        for (const dir of [taken, linked])
          await expect(startEmbedded(dir)).rejects.toThrow(
            `The data folder ${dir} belongs to another user (uid 65534): run the app as its owner.`,
          );
        expect(await readdir(taken)).toEqual([]); // nothing written into it
        expect((await lstat(taken)).mode & 0o777).toBe(0o777);
      } else {
        // Without a second user: the folder is this user's, and is narrowed.
        const db = await startEmbedded(taken);
        await db.stop();
        expect((await lstat(taken)).mode & 0o777).toBe(0o700);
      }
    },
    TIMEOUT_MS,
  );

  it(
    "replaces a socket a killed process left, and will not start while another answers on it",
    async () => {
      const dir = await openParent("stale");
      const first = await startEmbedded(dir);
      await first.stop();
      const socket = path.join(dir, "socket", ".s.PGSQL.5432");
      // A listener killed outright leaves its socket file behind.
      const killed = spawnSync(
        process.execPath,
        [
          "-e",
          `require("node:net").createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, "SIGKILL"))`,
        ],
        { timeout: 20_000 },
      );
      expect(killed.signal).toBe("SIGKILL");
      expect((await lstat(socket)).isSocket()).toBe(true);
      const second = await startEmbedded(dir);
      const client = new pg.Client({ connectionString: second.url });
      await client.connect();
      expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      await client.end();
      // While it serves, another start in the same folder stops before opening the database.
      await expect(startEmbedded(dir)).rejects.toThrow(/Another process serves the embedded database/);
      await second.stop();
    },
    TIMEOUT_MS,
  );

  it(
    "puts its socket in a new 0700 folder under the temporary folder when the data folder's path is too long",
    async () => {
      const dir = path.join(await openParent("long"), "d".repeat(100));
      const db = await startEmbedded(dir);
      const folder = new URL(db.url).searchParams.get("host") ?? "";
      try {
        expect(path.dirname(folder)).toBe(os.tmpdir());
        const info = await lstat(folder);
        expect([info.isDirectory(), info.mode & 0o777, info.uid]).toEqual([true, 0o700, process.getuid?.()]);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
        await client.end();
        if (asRoot)
          expect(asNobody([["connect", socketOf(db.url)]])).toEqual({ [`connect ${socketOf(db.url)}`]: "EACCES" });
      } finally {
        await db.stop();
      }
      await expect(lstat(folder)).rejects.toThrow(/ENOENT/);
    },
    TIMEOUT_MS,
  );
});
