import { spawnSync } from "node:child_process";
import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readMigrations } from "@/server/db/migrate";
import { PROCESS_TEST_TIMEOUT_MS } from "@/test/app";
import { CLI } from "@/test/cli";
import { testDatabase } from "@/test/database";

// The CLI as an operator runs it: a child process, DATABASE_URL in its environment.
const { url, client } = await testDatabase();

function svc(args: string[], env: Record<string, string | undefined> = {}) {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    env: { ...process.env, DATABASE_URL: url, SVC_ADMIN_PASSWORD: undefined, ...env },
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

/** `svc api-keys create` for the user `second` (made by an earlier test), with these arguments. */
const createKeyOfSecond = (...args: string[]) => svc(["api-keys", "create", "--user", "second", ...args]);

describe("svc CLI", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("migrate reports an up-to-date database", async () => {
    const run = svc(["migrate"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Database is up to date (${(await readMigrations()).length} migration(s) applied)`);
  });

  it("seed prints the first admin's generated password once", async () => {
    const first = svc(["seed"], { SVC_ADMIN_USERNAME: "ops" });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Created the first sys_admin: username "ops"/);
    expect(first.stdout).toMatch(/password: [A-Za-z0-9_-]{24}/);
    const second = svc(["seed"], { SVC_ADMIN_USERNAME: "ops" });
    expect(second.code).toBe(0);
    expect(second.stdout).not.toMatch(/password/);
    expect(await client.user.count({ where: { username: "ops" } })).toBe(1);
  });

  it("create-admin takes the password from SVC_ADMIN_PASSWORD and never prints it", async () => {
    const run = svc(["create-admin", "--username", "second", "--email", "Second@Example.com"], {
      SVC_ADMIN_PASSWORD: "correct horse battery staple",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("correct horse");
    const user = await client.user.findFirstOrThrow({
      where: { username: "second" },
      include: { user_roles: { include: { role: true } } },
    });
    expect(user.email).toBe("second@example.com");
    expect(user.user_roles.map((g) => g.role.name)).toEqual(["sys_admin"]);
  });

  it("create-admin refuses a taken username in one line", () => {
    const run = svc(["create-admin", "--username", "second"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("svc: This username is taken.");
  });

  it("partitions ensure creates monthly partitions ahead", async () => {
    const run = svc(["partitions", "ensure", "--months", "6"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ready 6 month\(s\) ahead \(3 created\)/);
    const rows = await client.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'messages'::regclass`;
    expect(Number(rows[0]?.n)).toBe(8); // this month, six ahead, and the default partition
  });

  it("reports an unreachable database in one line and exits non-zero", () => {
    const run = svc(["migrate"], { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("svc: Cannot reach PostgreSQL at 127.0.0.1:1 (connection refused).");
  });

  it("rejects a DATABASE_URL that is not a PostgreSQL address", () => {
    const run = svc(["migrate"], { DATABASE_URL: "mysql://localhost/db" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: Invalid environment: DATABASE_URL/);
    expect(run.stderr.split("\n")).toHaveLength(1);
  });

  it("api-keys create prints the raw key alone, which then authenticates; list and revoke follow", async () => {
    const create = createKeyOfSecond(
      "--name",
      "deploy",
      "--scope",
      "svc:system:users:read",
      "--scope",
      "svc:system:users:write",
    );
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^cdk_[0-9A-Za-z]{49}\n$/);
    const raw = create.stdout.trim();
    const { authenticateApiKey } = await import("@/server/auth/api-key-stage");
    const actor = await authenticateApiKey(raw);
    expect(actor.username).toBe("second");

    const list = svc(["api-keys", "list", "--user", "second"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${raw.slice(0, 12)}  active   deploy  svc:system:users:read,svc:system:users:write`);
    expect(list.stdout).not.toContain(raw);

    const revoke = svc(["api-keys", "revoke", actor.key.id]);
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toBe(`Revoked ${raw.slice(0, 12)}… (${actor.key.id}).\n`);
    expect(svc(["api-keys", "list", "--user", "second"]).stdout).toContain("revoked");
  });

  it("api-keys revoke says, in one line and exit 1, that Redis did not hear of a revocation it made", () => {
    const created = createKeyOfSecond("--name", "unannounced", "--scope", "svc:org:read", "--json");
    const { id } = JSON.parse(created.stdout) as { id: string };
    const revoke = svc(["api-keys", "revoke", id], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(revoke.code).toBe(1);
    expect(revoke.stdout).toMatch(/^Revoked /);
    expect(revoke.stderr).toMatch(
      /^svc: The change is made, but could not be announced on Redis \(.+\): .+; restart them\.$/,
    );
    expect(svc(["api-keys", "list", "--user", "second"]).stdout).toMatch(/ revoked +unannounced /);
  });

  it("api-keys roll prints the new raw key alone; the old key expires after --grace", async () => {
    const old = createKeyOfSecond("--name", "rolled", "--scope", "svc:org:read", "--json");
    const { id, raw_key } = JSON.parse(old.stdout) as { id: string; raw_key: string };
    const before = Date.now();
    const roll = svc(["api-keys", "roll", id, "--grace", "24h"]);
    expect(roll.code).toBe(0);
    expect(roll.stdout).toMatch(/^cdk_[0-9A-Za-z]{49}\n$/);
    const { authenticateApiKey } = await import("@/server/auth/api-key-stage");
    expect((await authenticateApiKey(roll.stdout.trim())).username).toBe("second");
    const expiresAt = (await authenticateApiKey(raw_key)).key.expiresAt!.getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000);
    expect(svc(["api-keys", "roll", id, "--grace", "soon"])).toMatchObject({ code: 2 });
  });

  it("api-keys create --json prints the record with the raw key, and --rate-limit sets the key's limit", () => {
    const run = createKeyOfSecond("--name", "j", "--scope", "svc:org:read", "--rate-limit", "600/60", "--json");
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout) as { raw_key: string; effective_scopes: string[]; rate_limit: unknown };
    expect(record.raw_key).toMatch(/^cdk_/);
    expect(record.effective_scopes).toEqual(["svc:org:read"]);
    expect(record.rate_limit).toEqual({ requests: 600, window_seconds: 60 });
  });

  it("api-keys create refuses unknown scopes and scopes the user does not hold, storing nothing", async () => {
    await client.user.create({ data: { username: "plain" } });
    const before = await client.apiKey.count();
    const unknown = createKeyOfSecond("--name", "x", "--scope", "svc:bogus");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("svc: Unknown scope: svc:bogus.");
    const escalation = svc(["api-keys", "create", "--user", "plain", "--name", "x", "--scope", "svc:org:read"]);
    expect(escalation.code).toBe(1);
    expect(escalation.stderr).toBe("svc: The key's owner does not hold: svc:org:read.");
    const missing = svc(["api-keys", "create", "--user", "nobody", "--name", "x", "--scope", "svc:org:read"]);
    expect(missing.stderr).toBe("svc: No user named nobody.");
    const invalid = createKeyOfSecond("--scope", "svc:org:read");
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^svc: name: /);
    const limit = createKeyOfSecond("--name", "x", "--scope", "svc:org:read", "--rate-limit", "600");
    expect(limit.code).toBe(2);
    expect(limit.stderr).toBe("svc: --rate-limit must be REQUESTS/SECONDS, like 600/60");
    const outOfRange = createKeyOfSecond("--name", "x", "--scope", "svc:org:read", "--rate-limit", "600/0");
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toMatch(/^svc: rate_limit\.window_seconds: /);
    expect(await client.apiKey.count()).toBe(before);
  });

  it("secrets rotate re-encrypts provider keys under the new key version, bound to their rows", async () => {
    const { encrypt, decrypt, parseKeyRing, newKeySpec } = await import("@/server/crypto/secret-box");
    const { legacyEncrypt } = await import("@/test/legacy-secret");
    const oldSpec = newKeySpec("v1");
    const org = await client.organization.create({ data: { name: "rot" } });
    const legacy = await client.organizationLlmConfig.create({
      data: {
        org_id: org.id,
        name: "k",
        provider: "openai",
        api_key: legacyEncrypt(parseKeyRing(oldSpec), "sk-rotate-me-1234"),
      },
    });
    const boundId = "0193a5c2-0000-7000-8000-00000000b0d1";
    const place = (id: string) => `organization_llm_configs:${id}:${org.id}`;
    const bound = await client.organizationLlmConfig.create({
      data: {
        id: boundId,
        org_id: org.id,
        name: "b",
        provider: "openai",
        api_key: encrypt(parseKeyRing(oldSpec), "sk-bound-5678", place(boundId)),
      },
    });
    const newSpec = `${newKeySpec("v2")},${oldSpec}`;
    const run = svc(["secrets", "rotate"], { SVC_ENCRYPTION_KEYS: newSpec });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "Re-encrypted 2 provider key(s) under the current key version, each bound to its LLM config.\n",
    );
    for (const [row, plaintext] of [
      [legacy, "sk-rotate-me-1234"],
      [bound, "sk-bound-5678"],
    ] as const) {
      const rotated = await client.organizationLlmConfig.findUniqueOrThrow({ where: { id: row.id } });
      expect(rotated.api_key.startsWith("bound:v2:")).toBe(true);
      expect(decrypt(parseKeyRing(newSpec), rotated.api_key, place(row.id))).toBe(plaintext);
    }
    expect(svc(["secrets", "rotate"], { SVC_ENCRYPTION_KEYS: newSpec }).stdout).toMatch(/Re-encrypted 0/);
  });

  it("works on the embedded database when DATABASE_URL is unset: seed, then api-keys create and list", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-cli-embedded-"));
    try {
      const embedded = { DATABASE_URL: undefined, SVC_DATA_DIR: dataDir };
      expect(svc(["seed"], embedded).code).toBe(0);
      const created = svc(
        ["api-keys", "create", "--user", "admin", "--name", "local", "--scope", "svc:system:users:read"],
        embedded,
      );
      expect(created.stderr).toBe("");
      expect(created.stdout.trim()).toMatch(/^cdk_[A-Za-z0-9]{49}$/);
      const listed = svc(["api-keys", "list", "--user", "admin"], embedded);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/active\s+local\s+svc:system:users:read/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("db dump --out writes a new file of mode 600, refusing an existing file or any symlink untouched", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "svc-cli-dump-"));
    try {
      const fresh = path.join(dir, "fresh.sql");
      const made = svc(["db", "dump", "--out", fresh], { SVC_DATA_DIR: dir });
      expect(made.code, made.stderr).toBe(0);
      expect((await stat(fresh)).mode & 0o777).toBe(0o600);
      expect(await readFile(fresh, "utf8")).toContain("_prisma_migrations");

      const existing = path.join(dir, "existing.sql");
      await writeFile(existing, "keep");
      await chmod(existing, 0o666);
      const other = path.join(dir, "other.sql");
      await writeFile(other, "other");
      const linked = path.join(dir, "linked.sql");
      await symlink(other, linked);
      const dangling = path.join(dir, "dangling.sql");
      await symlink(path.join(dir, "nowhere.sql"), dangling);
      for (const file of [existing, linked, dangling]) {
        const refused = svc(["db", "dump", "--out", file]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toBe(
          `svc: ${file} exists (or is a symlink): db dump writes a new file; --force replaces it.`,
        );
      }
      expect([await readFile(existing, "utf8"), (await stat(existing)).mode & 0o777]).toEqual(["keep", 0o666]);
      expect(await readFile(other, "utf8")).toBe("other");
      expect((await lstat(linked)).isSymbolicLink()).toBe(true);
      await expect(lstat(path.join(dir, "nowhere.sql"))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("db dump --out --force replaces a file with a new one of mode 600, and a symlink itself, not its target", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "svc-cli-dump-"));
    try {
      const existing = path.join(dir, "existing.sql");
      await writeFile(existing, "old");
      await chmod(existing, 0o666);
      const other = path.join(dir, "other.sql");
      await writeFile(other, "other");
      await chmod(other, 0o666);
      const linked = path.join(dir, "linked.sql");
      await symlink(other, linked);
      for (const file of [existing, linked]) {
        const replaced = svc(["db", "dump", "--out", file, "--force"]);
        expect(replaced.code, replaced.stderr).toBe(0);
        const info = await lstat(file);
        expect([info.isFile(), info.mode & 0o777]).toEqual([true, 0o600]);
        expect(await readFile(file, "utf8")).toContain("_prisma_migrations");
      }
      expect([await readFile(other, "utf8"), (await stat(other)).mode & 0o777]).toEqual(["other", 0o666]);
      // No temporary file is left beside them.
      expect((await readdir(dir)).sort()).toEqual(["existing.sql", "linked.sql", "other.sql"]);
      expect(svc(["db", "dump", "--force"]).stderr).toBe("svc: --force goes with --out FILE");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("explains its usage for an unknown command", () => {
    const run = svc(["frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Unknown command: frobnicate/);
    expect(run.stderr).toMatch(/create-admin --username U/);
  });
});
