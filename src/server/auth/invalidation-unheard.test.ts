import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isEmbeddedAddress } from "@/server/db/embedded-marker";
import { unheard } from "./invalidation";

// What a process that cannot receive other processes' invalidations says at start: on the embedded
// database (npm start's default) a plain note of what it means there, on a real PostgreSQL a warning.

describe("the start message of a process that hears no other process", () => {
  it("tells, on the embedded database, that the CLI's changes reach the app within 5 s, as information", () => {
    const { level, message } = unheard(true);
    expect(level).toBe("info");
    expect(message).toMatch(/changes made by the CLI .* reach the app within 5 s/);
    expect(message).not.toMatch(/cannot hear/);
  });

  it("warns elsewhere (a transaction pooler without a direct URL or Redis)", () => {
    const { level, message } = unheard(false);
    expect(level).toBe("warn");
    expect(message).toMatch(/cannot hear other processes' invalidations/);
    expect(message).toMatch(/DATABASE_DIRECT_URL or REDIS_URL/);
    expect(message).toMatch(/up to 5 s/);
  });
});

describe("whether a database is the embedded one", () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  const dataDir = async (marker?: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "svc-marker-"));
    dirs.push(dir);
    if (marker !== undefined) await writeFile(path.join(dir, "embedded.json"), marker);
    return dir;
  };
  const url = "postgresql://postgres@127.0.0.1:40123/postgres";

  it("is by the address its marker names", async () => {
    expect(isEmbeddedAddress(url, await dataDir(JSON.stringify({ url, pid: 1 })))).toBe(true);
    expect(isEmbeddedAddress("postgresql://postgres@127.0.0.1:5432/svc", await dataDir(JSON.stringify({ url })))).toBe(
      false,
    );
  });

  it("is not without a marker, or with one unreadable", async () => {
    expect(isEmbeddedAddress(url, await dataDir())).toBe(false);
    expect(isEmbeddedAddress(url, await dataDir("{not json"))).toBe(false);
  });
});
