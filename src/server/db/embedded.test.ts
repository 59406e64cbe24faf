import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBaseClient } from "./client";
import { runningEmbedded, startEmbedded } from "./embedded";
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

  it("is found by other processes while it runs, and not after it stops", async () => {
    const db = await startEmbedded(dataDir);
    // The marker names this process, which counts as "another" only from outside it.
    expect(await runningEmbedded(dataDir)).toBeUndefined();
    await db.stop();
    expect(await runningEmbedded(dataDir)).toBeUndefined();
  });
});
