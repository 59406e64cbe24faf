import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testDatabase } from "@/test/database";
import { TSX } from "@/test/cli";
import { recordGoodbyes } from "@/test/pg-goodbyes";

// The LISTEN connection at shutdown: a process that stops listening and exits at once (as the app
// does after its close hooks) must leave no connection behind for PostgreSQL to find dropped,
// whatever moment of its start the stop comes at: connecting, listening, or sending its probe.

const { url } = await testDatabase();
// The listener's connections go through a forwarder that notes those closed without a goodbye.
const goodbyes = await recordGoodbyes(url);
const folder = await mkdtemp(path.join(os.tmpdir(), "svc-listen-"));
afterAll(() => rm(folder, { recursive: true, force: true }));
const script = path.join(folder, "listen-then-exit.mts");
await writeFile(
  script,
  `import { listenOnPostgres } from "@/server/auth/invalidation-postgres";
const url = process.env.LISTEN_URL!;
const route = listenOnPostgres(url, url, () => undefined);
await new Promise((resolve) => setTimeout(resolve, Number(process.env.STOP_AFTER_MS)));
await route.stop();
process.exit(0);
`,
);

/** Runs the script: listens, stops after `ms`, exits; resolves with its exit code. */
const listenThenExit = (ms: number) =>
  new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [...TSX, script], {
      env: { ...process.env, LISTEN_URL: goodbyes.url, STOP_AFTER_MS: String(ms) },
      stdio: "ignore",
    });
    child.on("exit", resolve);
  });

describe("the LISTEN connection, stopped as the process exits", () => {
  it("ends with PostgreSQL's goodbye whenever in its start the stop comes", async () => {
    for (const ms of [0, 5, 10, 20, 40, 80, 160]) expect(await listenThenExit(ms)).toBe(0);
    // The forwarder hears a connection's end a moment after the process's exit.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(goodbyes.dropped()).toEqual([]);
  });
});
