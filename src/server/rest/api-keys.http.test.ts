import { describe, expect, it, vi } from "vitest";
import pg from "pg";
import { Browserless, startApp } from "@/test/app";
import { appOnOwnDatabase, consoleSession } from "@/test/suite";
import {
  createMember,
  createOrg,
  createOrgUser,
  createSysAdmin,
  createUser,
  createUserWith,
  grant,
  join,
  PASSWORD,
  roleId,
} from "@/test/fixtures";
import { createApiKey } from "@/server/services/api-keys/service";
import { systemActor } from "@/server/auth/actor";
import { totpCode } from "@/server/auth/totp";
import type { Permission } from "@/lib/permissions";
import { queryOnce } from "@/test/postgres";
import { readContext } from "@/server/db/context";

// The key routes and the X-API-KEY pipeline, over real HTTP against the production build running
// on this file's own PostgreSQL database.

const { client, url, app } = await appOnOwnDatabase();
const KEYS = "/api/admin/users/api-keys";

const admin = await createSysAdmin(client);
const console_ = await consoleSession(app, admin.username);

const cli = systemActor("test");
const issued: string[] = [];
async function keyFor(userId: string, scopes: Permission[], expires_at: string | null = null) {
  const key = await createApiKey(readContext(cli), userId, { name: "test", scopes, expires_at });
  issued.push(key.raw_key);
  return key;
}

const call = (path: string, init: RequestInit & { key?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("x-api-key", init.key);
  return app.fetch(path, { ...init, headers });
};

async function createViaConsole(body: unknown) {
  const response = await console_.fetch(KEYS, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (typeof json.raw_key === "string") issued.push(json.raw_key);
  return { response, json };
}

const keyCount = async () => client.apiKey.count();

describe("POST /api/admin/users/api-keys", () => {
  it("creates a key once, with the raw key in that response only", async () => {
    const { response, json } = await createViaConsole({
      name: "ci",
      scopes: ["svc:system:api_keys:read", "svc:system:users:write"],
      expires_at: null,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("location")).toBe(`${KEYS}/${json.id}`);
    expect(response.headers.get("x-request-id")).toMatch(/.+/);
    expect(Object.keys(json).sort()).toEqual([
      "allowed_cidrs",
      "allowed_org_ids",
      "created_at",
      "credits",
      "effective_scopes",
      "expires_at",
      "id",
      "is_active",
      "key_prefix",
      "meta",
      "name",
      "rate_limit",
      "raw_key",
      "scopes",
    ]);
    expect(json.raw_key).toMatch(/^cdk_[0-9A-Za-z]{49}$/);
    expect(json.key_prefix).toBe((json.raw_key as string).slice(0, 12));
    expect(json.effective_scopes).toEqual(["svc:system:api_keys:read"]);
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: json.id as string } });
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.updated_by).toBe(admin.id);
  });

  it("refuses an unknown scope with 400 unknown_scope and stores nothing", async () => {
    const before = await keyCount();
    const { response, json } = await createViaConsole({
      name: "x",
      scopes: ["svc:org:read", "svc:nope"],
      expires_at: null,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(json).toMatchObject({ code: "unknown_scope", status: 400, type: "/api/docs#error-unknown_scope" });
    expect(await keyCount()).toBe(before);
  });

  it("lets a sys_admin grant any known scope", async () => {
    const { response, json } = await createViaConsole({
      name: "all",
      scopes: ["svc:org:members:write", "svc:conversations:read", "svc:system:audit:read"],
      expires_at: null,
    });
    expect(response.status).toBe(201);
    expect(json.scopes).toEqual(["svc:org:members:write", "svc:conversations:read", "svc:system:audit:read"]);
  });

  it.each([
    ["malformed JSON", "{not json", "application/json", 400, "validation_failed"],
    ["wrong types", JSON.stringify({ name: 5, scopes: "svc:org:read" }), "application/json", 400, "validation_failed"],
    [
      "unknown fields",
      JSON.stringify({ name: "x", scopes: ["svc:org:read"], admin: true }),
      "application/json",
      400,
      "validation_failed",
    ],
    [
      "an empty name",
      JSON.stringify({ name: " ", scopes: ["svc:org:read"] }),
      "application/json",
      400,
      "validation_failed",
    ],
    [
      "repeated scopes",
      JSON.stringify({ name: "x", scopes: ["svc:org:read", "svc:org:read"] }),
      "application/json",
      400,
      "validation_failed",
    ],
    [
      "a past expiry",
      JSON.stringify({ name: "x", scopes: ["svc:org:read"], expires_at: "2001-01-01T00:00:00Z" }),
      "application/json",
      400,
      "validation_failed",
    ],
    ["a non-JSON body", "name=x", "text/plain", 415, "unsupported_media_type"],
  ])("answers %s with the documented 4xx and stores nothing", async (_label, body, type, status, code) => {
    const before = await keyCount();
    const response = await console_.fetch(KEYS, { method: "POST", headers: { "content-type": type }, body });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ code, status });
    expect(await keyCount()).toBe(before);
  });

  it("names each invalid field", async () => {
    const response = await console_.fetch(KEYS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "", scopes: [], surprise: 1 }),
    });
    const json = (await response.json()) as { errors: { path: string }[] };
    expect(json.errors.map((e) => e.path).sort()).toEqual(["name", "scopes", "surprise"]);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const response = await console_.fetch(KEYS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), scopes: ["svc:org:read"] }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "payload_too_large" });
  });

  it("cannot be done with a key, whatever it carries: keys cannot create keys", async () => {
    const key = await keyFor(admin.id, ["svc:system:api_keys:write", "svc:system:admin", "svc:system:api_keys:read"]);
    const before = await keyCount();
    const response = await call(KEYS, {
      method: "POST",
      key: key.raw_key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "child", scopes: ["svc:org:read"] }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      code: "forbidden",
      required_permission: "svc:system:api_keys:write",
    });
    expect(await keyCount()).toBe(before);
  });

  it("is refused to a signed-in user who is not a sys_admin", async () => {
    const user = await createUserWith(client, ["svc:system:api_keys:write", "svc:system:api_keys:read"]);
    const session = new Browserless(app.baseUrl);
    expect(await session.signIn(user.username, PASSWORD)).toBe(true);
    const response = await session.fetch(KEYS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x", scopes: ["svc:system:api_keys:read"] }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "forbidden", required_permission: "svc:system:admin" });
  });
});

describe("X-API-KEY pipeline", () => {
  it("resolves a key to its owner with the sanitized scopes", async () => {
    const key = await keyFor(admin.id, ["svc:system:users:read", "svc:system:users:write"]);
    const response = await call("/api/v1/me", { key: key.raw_key });
    expect(response.status).toBe(200);
    const me = (await response.json()) as {
      auth: string;
      user: { id: string };
      key: { id: string; key_prefix: string };
      permissions: string[];
    };
    expect(me.auth).toBe("api_key");
    expect(me.user.id).toBe(admin.id);
    expect(me.key).toMatchObject({ id: key.id, key_prefix: key.key_prefix });
    expect(me.permissions).toEqual(["svc:system:users:read"]);
  });

  it("carries the owner's organizations, with per-organization permissions", async () => {
    const org = await createOrg(client);
    const other = await createOrg(client);
    const user = await createOrgUser(client, org.id, "org_member");
    const key = await keyFor(user.id, ["svc:org:read", "svc:conversations:write"]);
    const me = (await (await call("/api/v1/me", { key: key.raw_key })).json()) as {
      permissions: string[];
      organizations: { id: string; permissions: string[] }[];
    };
    expect(me.permissions).toEqual([]);
    expect(me.organizations).toEqual([
      { id: org.id, name: org.name, permissions: ["svc:org:read", "svc:conversations:write"] },
    ]);
    expect(me.organizations.some((o) => o.id === other.id)).toBe(false);
  });

  it("refuses an unknown key, and a bad checksum, with 401 invalid_api_key", async () => {
    const key = await keyFor(admin.id, ["svc:system:users:read"]);
    const unknown = `cdk_${"A".repeat(43)}`;
    const { isWellFormedKey } = await import("@/server/auth/api-key-format");
    expect(isWellFormedKey(unknown + "000000")).toBe(false);
    for (const value of [key.raw_key.slice(0, -1) + (key.raw_key.endsWith("a") ? "b" : "a"), "cdk_short", "garbage"]) {
      const response = await call("/api/v1/me", { key: value });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_api_key" });
    }
  });

  it("refuses an expired key with 401 api_key_expired", async () => {
    const key = await keyFor(admin.id, ["svc:system:users:read"], new Date(Date.now() + 1500).toISOString());
    expect((await call("/api/v1/me", { key: key.raw_key })).status).toBe(200);
    // The key is cached by now; it is refused as soon as its expiry has passed.
    await untilRefused(key.raw_key, "api_key_expired", { timeout: 5_000, interval: 50 });
  });

  it("never takes a key from Authorization: Bearer", async () => {
    const key = await keyFor(admin.id, ["svc:system:users:read"]);
    const response = await call("/api/v1/me", { headers: { authorization: `Bearer ${key.raw_key}` } });
    expect(response.status).toBe(401);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe("unauthenticated");
    expect(problem.detail).toMatch(/X-API-KEY/);
  });

  it("answers 401 unauthenticated without credentials", async () => {
    const response = await call("/api/v1/me");
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "unauthenticated" });
  });

  it("takes away what a demoted owner no longer holds", async () => {
    const user = await createUser(client);
    const org = await createOrg(client);
    await join(client, user.id, org.id);
    const granted = await grant(client, user.id, await roleId(client, "org_admin"), org.id);
    const key = await keyFor(user.id, ["svc:org:read", "svc:org:write"]);
    const before = (await (await call("/api/v1/me", { key: key.raw_key })).json()) as {
      organizations: { permissions: string[] }[];
    };
    expect(before.organizations[0]?.permissions).toEqual(["svc:org:read", "svc:org:write"]);
    await client.userRole.delete({ where: { id: granted.id } });
    await grant(client, user.id, await roleId(client, "org_member"), org.id);
    await notifyUser(user.id);
    await vi.waitFor(
      async () => {
        const after = (await (await call("/api/v1/me", { key: key.raw_key })).json()) as {
          organizations: { permissions: string[] }[];
        };
        expect(after.organizations[0]?.permissions).toEqual(["svc:org:read"]);
      },
      { timeout: 2_000, interval: 20 },
    );
  });

  it("stops a deleted owner's keys with 401 api_key_revoked", async () => {
    const { user } = await createMember(client);
    const key = await keyFor(user.id, ["svc:org:read"]);
    expect((await call("/api/v1/me", { key: key.raw_key })).status).toBe(200);
    await client.user.update({ where: { id: user.id }, data: { is_deleted: true } });
    await notifyUser(user.id);
    await untilRefused(key.raw_key, "api_key_revoked", { timeout: 2_000, interval: 20 });
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const response = await call("/api/v1/me", { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(await response.json()).toMatchObject({ code: "method_not_allowed" });
  });
});

/** Waits until /api/v1/me refuses the key with 401 and this code. */
const untilRefused = (rawKey: string, code: string, wait: { timeout: number; interval: number }) =>
  vi.waitFor(async () => {
    const response = await call("/api/v1/me", { key: rawKey });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code });
  }, wait);

/** What the users and roles services do after changing a user's grants or deleting them. */
const notifyUser = (userId: string) =>
  queryOnce(url, "SELECT pg_notify('svc_auth_invalidate', $1)", [JSON.stringify({ userId })]);

describe("GET /api/admin/users/api-keys", () => {
  it("lists the caller's keys newest first with the documented fields, never the hash or raw key", async () => {
    const response = await console_.fetch(`${KEYS}?limit=100`);
    expect(response.status).toBe(200);
    const { data, next_cursor } = (await response.json()) as {
      data: Record<string, unknown>[];
      next_cursor: string | null;
    };
    expect(next_cursor).toBeNull();
    expect(data.length).toBeGreaterThan(3);
    expect(data.every((k) => k.user_id === admin.id)).toBe(true);
    expect(Object.keys(data[0] ?? {}).sort()).toEqual([
      "allowed_cidrs",
      "allowed_org_ids",
      "created_at",
      "credits",
      "expires_at",
      "id",
      "is_active",
      "key_prefix",
      "last_used_at",
      "last_used_ip",
      "last_user_agent",
      "meta",
      "name",
      "rate_limit",
      "scopes",
      "updated_at",
      "user_id",
    ]);
    const ids = data.map((k) => k.id as string);
    expect(ids).toEqual([...ids].sort().reverse());
  });

  it("pages with an opaque cursor", async () => {
    const first = (await (await console_.fetch(`${KEYS}?limit=2`)).json()) as {
      data: { id: string }[];
      next_cursor: string;
    };
    expect(first.data).toHaveLength(2);
    const second = (await (await console_.fetch(`${KEYS}?limit=2&cursor=${first.next_cursor}`)).json()) as {
      data: { id: string }[];
    };
    expect((second.data[0]?.id ?? "") < (first.data[1]?.id ?? "")).toBe(true);
    expect((await console_.fetch(`${KEYS}?cursor=bogus`)).status).toBe(400);
    expect((await console_.fetch(`${KEYS}?limit=101`)).status).toBe(400);
  });

  it("lets a sys_admin list another user's keys, and a key with only the read scope list its owner's", async () => {
    const { user } = await createMember(client);
    const key = await keyFor(user.id, ["svc:org:read"]);
    const list = (await (await console_.fetch(`${KEYS}?user_id=${user.id}`)).json()) as { data: { id: string }[] };
    expect(list.data.map((k) => k.id)).toEqual([key.id]);
    const readKey = await keyFor(admin.id, ["svc:system:api_keys:read"]);
    expect((await call(KEYS, { key: readKey.raw_key })).status).toBe(200);
    const noScope = await keyFor(admin.id, ["svc:system:users:read"]);
    const refused = await call(KEYS, { key: noScope.raw_key });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ required_permission: "svc:system:api_keys:read" });
  });
});

describe("DELETE /api/admin/users/api-keys/{key_id}", () => {
  it("revokes the caller's key, which fails at once; revoking again answers 200", async () => {
    const { json } = await createViaConsole({ name: "to revoke", scopes: ["svc:system:users:read"], expires_at: null });
    const raw = json.raw_key as string;
    expect((await call("/api/v1/me", { key: raw })).status).toBe(200);
    const response = await console_.fetch(`${KEYS}/${json.id}`, { method: "DELETE" });
    expect(response.status).toBe(200);
    const revoked = (await response.json()) as { is_active: boolean; id: string };
    expect(revoked).toMatchObject({ id: json.id, is_active: false });
    const refused = await call("/api/v1/me", { key: raw });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "api_key_revoked" });
    expect((await console_.fetch(`${KEYS}/${json.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: json.id as string } })).updated_by).toBe(admin.id);
  });

  it("answers 404 for another user's key and for an unknown id, 400 for a bad id", async () => {
    const other = await createSysAdmin(client);
    const key = await keyFor(other.id, ["svc:org:read"]);
    const response = await console_.fetch(`${KEYS}/${key.id}`, { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "not_found" });
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).is_active).toBe(true);
    expect((await console_.fetch(`${KEYS}/0190a000-0000-7000-8000-000000000000`, { method: "DELETE" })).status).toBe(
      404,
    );
    const bad = await console_.fetch(`${KEYS}/not-a-uuid`, { method: "DELETE" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "validation_failed", errors: [{ path: "params.key_id" }] });
  });
});

describe("revocation across processes", () => {
  it("takes effect in another process of the deployment within a second", async () => {
    const second = await startApp(url);
    const { json } = await createViaConsole({ name: "shared", scopes: ["svc:system:users:read"], expires_at: null });
    const raw = json.raw_key as string;
    // Both processes have the key cached as valid.
    expect((await call("/api/v1/me", { key: raw })).status).toBe(200);
    expect((await second.fetch("/api/v1/me", { headers: { "x-api-key": raw } })).status).toBe(200);
    expect((await console_.fetch(`${KEYS}/${json.id}`, { method: "DELETE" })).status).toBe(200);
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 1000) {
      status = (await second.fetch("/api/v1/me", { headers: { "x-api-key": raw } })).status;
    }
    expect(status).toBe(401);
    await second.stop();
  });
});

/** Two-factor set up from the console session: its secret and recovery codes are secrets too. */
async function twoFactorSecrets(): Promise<string[]> {
  const setup = (await (await console_.fetch("/api/v1/me/two-factor/setup", { method: "POST" })).json()) as {
    secret: string;
  };
  const confirm = await console_.fetch("/api/v1/me/two-factor/confirm", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: totpCode(setup.secret, Date.now() / 1000) }),
  });
  const { recovery_codes } = (await confirm.json()) as { recovery_codes: string[] };
  expect(recovery_codes).toHaveLength(10);
  // A recovery code is also checked as typed without its dashes.
  return [setup.secret, ...recovery_codes, ...recovery_codes.map((code) => code.replace(/-/g, ""))];
}

describe("secrecy", () => {
  it("never writes a raw key, a TOTP secret or a recovery code to a log line or a database column", async () => {
    expect(issued.length).toBeGreaterThan(5);
    const twoFactor = await twoFactorSecrets();
    // Used at a sign-in, which logs its request.
    const signingIn = new Browserless(app.baseUrl);
    await signingIn.postCredentials({ username: admin.username, password: PASSWORD });
    expect(await signingIn.signInWithCode(twoFactor[1] as string)).toBe(true);
    const logs = app.logs();
    expect(logs).toMatch(/"msg":"request"/);
    const dump = new pg.Client({ connectionString: url });
    await dump.connect();
    const tables = await dump.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    let everything = "";
    for (const { table_name } of tables.rows) {
      const rows = await dump.query(`SELECT * FROM "${table_name}"`);
      everything += JSON.stringify(rows.rows);
    }
    // The audit trail is among the tables dumped, and holds the creation of the keys looked for.
    const created = await dump.query(
      "SELECT changes FROM audit_events WHERE action = 'createApiKey' AND outcome = 'success'",
    );
    expect(created.rowCount).toBeGreaterThan(0);
    await dump.end();
    const responses = [
      await (await console_.fetch(`${KEYS}?limit=100`)).text(),
      await (await console_.fetch(`${KEYS}?limit=100&active=false`)).text(),
      await (await console_.fetch("/api/v1/me")).text(),
    ].join("");
    for (const secret of twoFactor) {
      expect(responses).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(everything).not.toContain(secret);
    }
    for (const raw of issued) {
      expect(responses).not.toContain(raw);
      expect(logs).not.toContain(raw);
      expect(logs).not.toContain(raw.slice(12));
      expect(everything).not.toContain(raw);
    }
  });
});
