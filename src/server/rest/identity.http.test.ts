import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { ALL_PERMISSIONS } from "@/lib/permissions";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, request, untilKeyCached, type Caller } from "@/test/app";
import { appWithSysAdmin } from "@/test/suite";
import {
  createOrg,
  createOrgAdmin,
  createOrgUser,
  createRole,
  createUser,
  createUserWith,
  join,
  PASSWORD,
  roleId,
} from "@/test/fixtures";
import { readContext } from "@/server/db/context";

// Users, memberships, roles and grants, effective permissions, OAuth identities and OAuth clients
// over real HTTP. Reads work with an API key; writes need dangerous permissions, which never reach
// a key, so they are made by signed-in console sessions on the same routes.

const { client, app, admin, key, session } = await appWithSysAdmin();

const call = <T = Record<string, unknown>>(as: Caller, method: string, path: string, body?: unknown) =>
  request<T>(app, as, method, path, body);
const withKey = { key: key.raw_key };
const asAdmin = { session };

let n = 0;
const fresh = (prefix = "user") => `${prefix}-${process.pid}-${++n}`;

async function signedIn(userId: string) {
  const user = await client.user.findUniqueOrThrow({ where: { id: userId } });
  const browser = new Browserless(app.baseUrl);
  expect(await browser.signIn(user.username, PASSWORD)).toBe(true);
  return { session: browser };
}

describe("users over REST", () => {
  it("creates (session), reads and searches (key), never showing the password hash", async () => {
    const username = fresh("lin");
    const created = await call<{ id: string }>(asAdmin, "POST", "/api/v1/users", {
      username,
      email: `${username.toUpperCase()}@Example.test`,
      password: "a long password 1",
      display_name: "Lin",
      timezone: "Asia/Tokyo",
      locale: "ja",
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`/api/v1/users/${created.body.id}`);
    expect(created.body).toMatchObject({
      username,
      email: `${username}@example.test`,
      has_password: true,
      timezone: "Asia/Tokyo",
    });
    expect(JSON.stringify(created.body)).not.toMatch(/password_hash|argon2/);
    const read = await call(withKey, "GET", `/api/v1/users/${created.body.id}`);
    expect(read).toMatchObject({ status: 200, body: { id: created.body.id, username } });
    const search = await call<{ data: { id: string }[] }>(withKey, "GET", `/api/v1/users?q=${username}`);
    expect(search.body.data.map((u) => u.id)).toEqual([created.body.id]);
  });

  it("refuses user writes with an API key, whatever it carries", async () => {
    const wide = await createApiKey(readContext(systemActor("test")), admin.id, {
      name: "wide",
      scopes: ["svc:system:users:write", "svc:system:users:read"],
      expires_at: null,
    });
    const refused = await call({ key: wide.raw_key }, "POST", "/api/v1/users", { username: fresh() });
    expect(refused).toMatchObject({
      status: 403,
      body: { code: "forbidden", required_permission: "svc:system:users:write" },
    });
  });

  it.each([
    ["a duplicate username", (u: string) => ({ username: u }), 409, "conflict", "username"],
    [
      "a duplicate email",
      (u: string) => ({ username: `${u}-2`, email: `${u}@example.test` }),
      409,
      "conflict",
      "email",
    ],
    ["a malformed email", () => ({ username: fresh(), email: "not-an-email" }), 400, "validation_failed", "email"],
    ["a username with @", () => ({ username: "a@b" }), 400, "validation_failed", "username"],
    ["a short password", () => ({ username: fresh(), password: "short" }), 400, "validation_failed", "password"],
    [
      "an unknown time zone",
      () => ({ username: fresh(), timezone: "Mars/Olympus" }),
      400,
      "validation_failed",
      "timezone",
    ],
    [
      "an http avatar",
      () => ({ username: fresh(), avatar_url: "http://x.test/a.png" }),
      400,
      "validation_failed",
      "avatar_url",
    ],
    ["an unknown field", () => ({ username: fresh(), is_admin: true }), 400, "validation_failed", "is_admin"],
  ])("answers %s with the documented 4xx, changing nothing", async (_label, body, status, code, path) => {
    const username = fresh("dup");
    await call(asAdmin, "POST", "/api/v1/users", { username, email: `${username}@example.test` });
    const before = await client.user.count();
    const refused = await call<{ code: string; errors: { path: string }[] }>(
      asAdmin,
      "POST",
      "/api/v1/users",
      body(username),
    );
    expect(refused.status).toBe(status);
    expect(refused.body.code).toBe(code);
    expect(refused.body.errors.map((e) => e.path)).toContain(path);
    expect(await client.user.count()).toBe(before);
  });

  it("resets a password with Cache-Control no-store, and the new one signs in", async () => {
    const user = await createUser(client);
    const reset = await call<{ password: string }>(asAdmin, "POST", `/api/v1/users/${user.id}/password`, {});
    expect(reset.status).toBe(200);
    expect(reset.headers.get("cache-control")).toBe("no-store");
    expect(await new Browserless(app.baseUrl).signIn(user.username, reset.body.password)).toBe(true);
    expect(await new Browserless(app.baseUrl).signIn(user.username, PASSWORD)).toBe(false);
  });

  it("soft-deletes a user: their key stops at once and their session ends; restore brings both back", async () => {
    const user = await createUserWith(client, ["svc:system:audit:read", "svc:system:users:read"]);
    const theirKey = await createApiKey(readContext(systemActor("test")), user.id, {
      name: "k",
      scopes: ["svc:system:users:read"],
      expires_at: null,
    });
    const theirSession = await signedIn(user.id);
    expect((await call({ key: theirKey.raw_key }, "GET", "/api/v1/me")).status).toBe(200);
    const deleted = await call(asAdmin, "DELETE", `/api/v1/users/${user.id}`);
    expect(deleted).toMatchObject({ status: 200, body: { is_deleted: true } });
    expect(await call({ key: theirKey.raw_key }, "GET", "/api/v1/me")).toMatchObject({
      status: 401,
      body: { code: "api_key_revoked" },
    });
    expect((await call(theirSession, "GET", "/api/v1/me")).status).toBe(401);
    expect((await call(withKey, "GET", `/api/v1/users/${user.id}`)).status).toBe(404);
    expect((await call(asAdmin, "GET", `/api/v1/users/${user.id}?include_deleted=true`)).body).toMatchObject({
      is_deleted: true,
    });
    const reader = await createUserWith(client, ["svc:system:users:read"]);
    const readerKey = await createApiKey(readContext(systemActor("test")), reader.id, {
      name: "r",
      scopes: ["svc:system:users:read"],
      expires_at: null,
    });
    expect(
      (await call({ key: readerKey.raw_key }, "GET", `/api/v1/users/${user.id}?include_deleted=true`)).status,
    ).toBe(403);
    expect((await call(asAdmin, "POST", `/api/v1/users/${user.id}/restore`)).body).toMatchObject({ is_deleted: false });
    expect((await call({ key: theirKey.raw_key }, "GET", "/api/v1/me")).status).toBe(200);
  });

  it("refuses to delete the last sys_admin (409), changing nothing", async () => {
    const holders = await client.userRole.findMany({
      where: { role_id: await roleId(client, "sys_admin"), user_id: { not: admin.id } },
    });
    for (const h of holders) expect((await call(asAdmin, "DELETE", `/api/v1/users/${h.user_id}`)).status).toBe(200);
    const refused = await call<{ code: string; detail: string }>(asAdmin, "DELETE", `/api/v1/users/${admin.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("without a sys_admin");
    const grantId = (await client.userRole.findFirstOrThrow({ where: { user_id: admin.id } })).id;
    expect((await call(asAdmin, "DELETE", `/api/v1/users/${admin.id}/roles/${grantId}`)).status).toBe(409);
    expect(await client.user.findUniqueOrThrow({ where: { id: admin.id } })).toMatchObject({ is_deleted: false });
    expect((await call(withKey, "GET", "/api/v1/me")).status).toBe(200);
  });

  it("lists and unlinks OAuth identities", async () => {
    const user = await createUser(client);
    const identity = await client.userOauthIdentity.create({
      data: { user_id: user.id, provider: "github", provider_user_id: fresh("gh") },
    });
    const listed = await call<{ data: { id: string; provider: string }[] }>(
      withKey,
      "GET",
      `/api/v1/users/${user.id}/identities`,
    );
    expect(listed.body.data).toEqual([expect.objectContaining({ id: identity.id, provider: "github" })]);
    expect((await call(withKey, "DELETE", `/api/v1/users/${user.id}/identities/${identity.id}`)).status).toBe(403);
    expect((await call(asAdmin, "DELETE", `/api/v1/users/${user.id}/identities/${identity.id}`)).status).toBe(200);
    expect(await client.userOauthIdentity.count({ where: { user_id: user.id } })).toBe(0);
  });
});

describe("memberships over REST", () => {
  it("adds, lists both ways and removes members", async () => {
    const org = await createOrg(client);
    const user = await createUser(client);
    const added = await call(asAdmin, "POST", `/api/v1/organizations/${org.id}/members`, { user_id: user.id });
    expect(added).toMatchObject({ status: 201, body: { user_id: user.id, org_id: org.id, roles: [] } });
    expect((await call(asAdmin, "POST", `/api/v1/organizations/${org.id}/members`, { user_id: user.id })).status).toBe(
      409,
    );
    const members = await call<{ data: { user_id: string }[] }>(
      withKey,
      "GET",
      `/api/v1/organizations/${org.id}/members`,
    );
    expect(members.body.data.map((m) => m.user_id)).toEqual([user.id]);
    const orgs = await call<{ data: { org_id: string }[] }>(withKey, "GET", `/api/v1/users/${user.id}/organizations`);
    expect(orgs.body.data.map((o) => o.org_id)).toEqual([org.id]);
    expect((await call(withKey, "DELETE", `/api/v1/organizations/${org.id}/members/${user.id}`)).status).toBe(403);
    expect((await call(asAdmin, "DELETE", `/api/v1/organizations/${org.id}/members/${user.id}`)).status).toBe(200);
    expect(await client.userOrgMembership.count({ where: { org_id: org.id } })).toBe(0);
  });

  it("lets an org admin manage members and org roles in its organization only", async () => {
    const [home, other] = [await createOrg(client), await createOrg(client)];
    const orgAdmin = await createOrgAdmin(client, home.id);
    const as = await signedIn(orgAdmin.id);
    const newcomer = await createUser(client);
    expect((await call(as, "POST", `/api/v1/organizations/${home.id}/members`, { user_id: newcomer.id })).status).toBe(
      201,
    );
    const granted = await call(as, "POST", `/api/v1/organizations/${home.id}/members/${newcomer.id}/roles`, {
      role_id: await roleId(client, "org_member"),
    });
    expect(granted).toMatchObject({ status: 201, body: { org_id: home.id, role: { name: "org_member" } } });
    const sysRole = await call(as, "POST", `/api/v1/organizations/${home.id}/members/${newcomer.id}/roles`, {
      role_id: await roleId(client, "sys_admin"),
    });
    expect(sysRole.status).toBe(400);
    expect((await call(as, "POST", `/api/v1/organizations/${other.id}/members`, { user_id: newcomer.id })).status).toBe(
      404,
    );
    expect(
      (
        await call(as, "POST", "/api/v1/users/" + newcomer.id + "/roles", {
          role_id: await roleId(client, "org_member"),
          org_id: home.id,
        })
      ).status,
    ).toBe(403);
    const revoked = await call(
      as,
      "DELETE",
      `/api/v1/organizations/${home.id}/members/${newcomer.id}/roles/${await roleId(client, "org_member")}`,
    );
    expect(revoked.status).toBe(200);
    expect(await client.userRole.count({ where: { user_id: newcomer.id } })).toBe(0);
  });
});

describe("roles, grants and effective permissions over REST", () => {
  it("serves the permission catalog with the dangerous ones marked", async () => {
    const catalog = await call<{ data: { permission: string; dangerous: boolean; scope: string }[] }>(
      withKey,
      "GET",
      "/api/v1/permissions",
    );
    expect(catalog.body.data).toHaveLength(ALL_PERMISSIONS.length);
    expect(catalog.body.data.find((p) => p.permission === "svc:system:roles:write")).toMatchObject({
      dangerous: true,
      scope: "system",
    });
    expect(catalog.body.data.find((p) => p.permission === "svc:org:read")).toMatchObject({
      dangerous: false,
      scope: "org",
    });
  });

  it("creates roles from catalog permissions only (400 otherwise, nothing stored)", async () => {
    const before = await client.role.count();
    const refused = await call<{ code: string; errors: { path: string }[] }>(asAdmin, "POST", "/api/v1/roles", {
      name: "Bad role",
      scope: "org",
      permissions: ["svc:org:read", "svc:org:fly"],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: "permissions.1", message: "svc:org:fly is not a known permission" }]);
    expect(await client.role.count()).toBe(before);
    const created = await call<{ id: string }>(asAdmin, "POST", "/api/v1/roles", {
      name: "Readers",
      scope: "org",
      permissions: ["svc:org:read"],
    });
    expect(created.status).toBe(201);
    expect((await call(withKey, "GET", `/api/v1/roles/${created.body.id}`)).body).toMatchObject({
      name: "Readers",
      scope: "org",
      is_built_in: false,
    });
    expect(
      (await call(asAdmin, "PATCH", `/api/v1/roles/${await roleId(client, "org_member")}`, { name: "members" })).body,
    ).toMatchObject({ code: "immutable_field" });
    expect((await call(asAdmin, "DELETE", `/api/v1/roles/${await roleId(client, "org_member")}`)).status).toBe(409);
  });

  it("refuses a grant the granter does not hold (403 scope_not_held), changing nothing", async () => {
    const lesser = await createUserWith(client, [
      "svc:system:roles:write",
      "svc:system:roles:read",
      "svc:system:audit:read",
    ]);
    const as = await signedIn(lesser.id);
    const target = await createUser(client);
    const before = await client.userRole.count();
    const refused = await call(as, "POST", `/api/v1/users/${target.id}/roles`, {
      role_id: await roleId(client, "sys_admin"),
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { code: "scope_not_held", scopes: expect.arrayContaining(["svc:system:admin", "svc:system:users:write"]) },
    });
    const role = await createRole(client, "system", ["svc:system:audit:read", "svc:system:settings:write"]);
    expect((await call(as, "POST", `/api/v1/users/${target.id}/roles`, { role_id: role.id })).status).toBe(403);
    expect(
      (
        await call(as, "PATCH", `/api/v1/roles/${role.id}`, {
          permissions: ["svc:system:audit:read", "svc:system:settings:write", "svc:system:orgs:read"],
        })
      ).status,
    ).toBe(403);
    expect(await client.userRole.count()).toBe(before);
    expect(await client.rolePermission.count({ where: { role_id: role.id } })).toBe(2);
    const held = await createRole(client, "system", ["svc:system:audit:read"]);
    expect((await call(as, "POST", `/api/v1/users/${target.id}/roles`, { role_id: held.id })).status).toBe(201);
  });

  it("shows effective permissions with their sources, and grants and revokes", async () => {
    const org = await createOrg(client);
    const user = await createUser(client);
    await join(client, user.id, org.id);
    const granted = await call<{ id: number }>(asAdmin, "POST", `/api/v1/users/${user.id}/roles`, {
      role_id: await roleId(client, "org_member"),
      org_id: org.id,
    });
    expect(granted.status).toBe(201);
    expect(
      (
        await call(asAdmin, "POST", `/api/v1/users/${user.id}/roles`, {
          role_id: await roleId(client, "org_member"),
          org_id: org.id,
        })
      ).status,
    ).toBe(409);
    const view = await call<{
      global: unknown[];
      organizations: { id: string; permissions: { permission: string; sources: { role_name: string }[] }[] }[];
    }>(withKey, "GET", `/api/v1/users/${user.id}/effective-permissions`);
    expect(view.body.global).toEqual([]);
    expect(
      view.body.organizations[0]?.permissions.find((p) => p.permission === "svc:conversations:write")?.sources,
    ).toEqual([expect.objectContaining({ role_name: "org_member" })]);
    const grants = await call<{ data: { id: number }[] }>(withKey, "GET", `/api/v1/users/${user.id}/roles`);
    expect(grants.body.data.map((g) => g.id)).toEqual([granted.body.id]);
    expect((await call(asAdmin, "DELETE", `/api/v1/users/${user.id}/roles/${granted.body.id}`)).status).toBe(200);
    expect((await call(asAdmin, "DELETE", `/api/v1/users/${user.id}/roles/not-a-number`)).status).toBe(400);
  });

  it("shows a member's key an organization's new name at its very next request", async () => {
    const org = await createOrg(client);
    const user = await createOrgUser(client, org.id, await createRole(client, "org", ["svc:org:read"]));
    const theirKey = await createApiKey(readContext(systemActor("test")), user.id, {
      name: "bot",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    const namesSeen = async () =>
      (
        await call<{ organizations: { id: string; name: string }[] }>({ key: theirKey.raw_key }, "GET", "/api/v1/me")
      ).body.organizations.map((o) => [o.id, o.name]);
    await untilKeyCached(app, () => app.fetch("/api/v1/me", { headers: { "x-api-key": theirKey.raw_key } }));
    expect(await namesSeen()).toEqual([[org.id, org.name]]);
    const renamed = fresh("renamed");
    expect((await call(asAdmin, "PATCH", `/api/v1/organizations/${org.id}`, { name: renamed })).status).toBe(200);
    expect(await namesSeen()).toEqual([[org.id, renamed]]);
  });

  it("changes what a key may do at its very next request after a role edit", async () => {
    const org = await createOrg(client);
    const role = await createRole(client, "org", ["svc:org:read", "svc:orchestrators:read"]);
    const user = await createOrgUser(client, org.id, role);
    const theirKey = await createApiKey(readContext(systemActor("test")), user.id, {
      name: "bot",
      scopes: ["svc:org:read", "svc:orchestrators:read"],
      expires_at: null,
    });
    const path = `/api/v1/organizations/${org.id}/orchestrators`;
    const permissionsSeen = async () =>
      (
        await call<{ organizations: { permissions: string[] }[] }>({ key: theirKey.raw_key }, "GET", "/api/v1/me")
      ).body.organizations.flatMap((o) => o.permissions);
    expect((await call({ key: theirKey.raw_key }, "GET", path)).status).toBe(200);
    expect(await permissionsSeen()).toEqual(["svc:org:read", "svc:orchestrators:read"]);
    expect((await call(asAdmin, "PATCH", `/api/v1/roles/${role.id}`, { permissions: ["svc:org:read"] })).status).toBe(
      200,
    );
    expect(await permissionsSeen()).toEqual(["svc:org:read"]);
    expect(await call({ key: theirKey.raw_key }, "GET", path)).toMatchObject({
      status: 403,
      body: { code: "forbidden", required_permission: "svc:orchestrators:read" },
    });
    expect(
      (
        await call(asAdmin, "PATCH", `/api/v1/roles/${role.id}`, {
          permissions: ["svc:org:read", "svc:orchestrators:read"],
        })
      ).status,
    ).toBe(200);
    expect((await call({ key: theirKey.raw_key }, "GET", path)).status).toBe(200);
    const grantId = (await client.userRole.findFirstOrThrow({ where: { user_id: user.id } })).id;
    expect((await call(asAdmin, "DELETE", `/api/v1/users/${user.id}/roles/${grantId}`)).status).toBe(200);
    expect((await call({ key: theirKey.raw_key }, "GET", path)).status).toBe(403);
  });
});

describe("OAuth clients over REST", () => {
  const body = (extra: Record<string, unknown> = {}) => ({
    name: "Portal",
    client_type: "confidential",
    redirect_uris: ["https://portal.example.test/cb"],
    allowed_grant_types: ["authorization_code", "refresh_token"],
    allowed_scopes: ["svc:org:read"],
    ...extra,
  });

  it("registers a client with its secret once (no-store), never shown again", async () => {
    const created = await call<{ client_id: string; client_secret: string }>(
      asAdmin,
      "POST",
      "/api/v1/oauth-clients",
      body(),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.headers.get("location")).toBe(`/api/v1/oauth-clients/${created.body.client_id}`);
    expect(created.body.client_secret).toMatch(/^cds_/);
    const read = await call(withKey, "GET", `/api/v1/oauth-clients/${created.body.client_id}`);
    const list = await call(withKey, "GET", "/api/v1/oauth-clients");
    for (const text of [JSON.stringify(read.body), JSON.stringify(list.body)]) {
      expect(text).not.toContain(created.body.client_secret);
      expect(text).not.toContain("client_secret_hash");
    }
    expect(read.headers.get("cache-control")).toBeNull();
    const rotated = await call<{ client_secret: string }>(
      asAdmin,
      "POST",
      `/api/v1/oauth-clients/${created.body.client_id}/rotate-secret`,
    );
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.client_secret).not.toBe(created.body.client_secret);
    expect(
      (await call(asAdmin, "PATCH", `/api/v1/oauth-clients/${created.body.client_id}`, { is_active: false })).body,
    ).toMatchObject({ is_active: false });
    expect((await call(asAdmin, "DELETE", `/api/v1/oauth-clients/${created.body.client_id}`)).body).toMatchObject({
      is_deleted: true,
    });
    expect((await call(withKey, "GET", `/api/v1/oauth-clients/${created.body.client_id}`)).status).toBe(404);
  });

  it.each([
    ["a fragment", { redirect_uris: ["https://portal.example.test/cb#x"] }, 400, "validation_failed"],
    ["plain http", { redirect_uris: ["http://portal.example.test/cb"] }, 400, "validation_failed"],
    ["a relative URI", { redirect_uris: ["/cb"] }, 400, "validation_failed"],
    ["an unknown grant type", { allowed_grant_types: ["password"] }, 400, "validation_failed"],
    ["an unknown scope", { allowed_scopes: ["svc:org:everything"] }, 400, "unknown_scope"],
    [
      "client_credentials for a public client",
      { client_type: "public", allowed_grant_types: ["client_credentials"] },
      400,
      "validation_failed",
    ],
  ])("refuses %s, storing nothing", async (_label, extra, status, code) => {
    const before = await client.oauth2Client.count();
    const refused = await call(asAdmin, "POST", "/api/v1/oauth-clients", body(extra));
    expect(refused).toMatchObject({ status, body: { code } });
    expect(await client.oauth2Client.count()).toBe(before);
  });

  it("cannot be registered with an API key", async () => {
    expect((await call(withKey, "POST", "/api/v1/oauth-clients", body())).body).toMatchObject({
      code: "forbidden",
      required_permission: "svc:system:oauth_clients:write",
    });
  });
});
