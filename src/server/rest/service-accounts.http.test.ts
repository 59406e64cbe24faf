import { describe, expect, it } from "vitest";
import { KEY_POLICY } from "@/lib/key-policies";
import { Browserless, request, startApp, type Caller } from "@/test/app";
import { testDatabase } from "@/test/database";
import {
  createOrg,
  createRole,
  createSysAdmin,
  createUser,
  grant,
  join,
  PASSWORD,
  roleId,
  seedRoles,
} from "@/test/fixtures";

// Service accounts over real HTTP, as an organization's admin makes and uses them: a key that acts
// in its organization only, outlives the person who made it and ends with its account; no way into
// the console; no more than the admin holds; key policies and revoking every key of a user.

const { client, url } = await testDatabase();
await seedRoles(client);
const app = await startApp(url);

let n = 0;
const fresh = (prefix = "robot") => `${prefix}-${process.pid}-${++n}`;
const orgMember = await roleId(client, "org_member");

/** A person who is org_admin of a new organization, signed in. */
async function orgAdmin() {
  const user = await createUser(client);
  const org = await createOrg(client);
  await join(client, user.id, org.id);
  await grant(client, user.id, await roleId(client, "org_admin"), org.id);
  const session = new Browserless(app.baseUrl);
  expect(await session.signIn(user.username, PASSWORD)).toBe(true);
  return { user, org, as: { session } as Caller };
}

const BASE = (orgId: string) => `/api/v1/organizations/${orgId}/service-accounts`;

/** A service account with org_member and a key reading the organization, made by `as`. */
async function robotWithKey(as: Caller, orgId: string, body: Record<string, unknown> = {}) {
  const account = await request<{ id: string }>(app, as, "POST", BASE(orgId), {
    username: fresh(),
    display_name: "Nightly export",
    role_ids: [orgMember],
  });
  expect(account.status, JSON.stringify(account.body)).toBe(201);
  expect(account.headers.get("location")).toBe(`${BASE(orgId)}/${account.body.id}`);
  const key = await request<{ id: string; raw_key: string }>(
    app,
    as,
    "POST",
    `${BASE(orgId)}/${account.body.id}/api-keys`,
    { name: "export", scopes: ["svc:org:read"], ...body },
  );
  return { account: account.body, key };
}

describe("a service account's key", () => {
  it("acts in its organization only, outlives its maker, and ends with its account", async () => {
    const { user, org, as } = await orgAdmin();
    const { account, key } = await robotWithKey(as, org.id);
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect(key.headers.get("cache-control")).toContain("no-store");
    const robot = { key: key.body.raw_key };
    expect((await request(app, robot, "GET", `/api/v1/organizations/${org.id}`)).status).toBe(200);
    const other = await createOrg(client);
    expect((await request(app, robot, "GET", `/api/v1/organizations/${other.id}`)).status).toBe(404);
    const me = await request<{ user: { id: string } }>(app, robot, "GET", "/api/v1/me");
    expect(me.body.user.id).toBe(account.id);

    // Its maker leaves the organization, then is deleted: the key works on.
    const admin = { session: new Browserless(app.baseUrl) };
    const sysAdmin = await createSysAdmin(client);
    expect(await admin.session.signIn(sysAdmin.username, PASSWORD)).toBe(true);
    expect((await request(app, admin, "DELETE", `/api/v1/organizations/${org.id}/members/${user.id}`)).status).toBe(
      200,
    );
    expect((await request(app, admin, "DELETE", `/api/v1/users/${user.id}`)).status).toBe(200);
    expect((await request(app, robot, "GET", `/api/v1/organizations/${org.id}`)).status).toBe(200);

    // Deleting the account revokes its key at once.
    const deleted = await request(app, admin, "DELETE", `${BASE(org.id)}/${account.id}`);
    expect(deleted.status).toBe(200);
    expect((await request(app, robot, "GET", `/api/v1/organizations/${org.id}`)).status).toBe(401);
    expect((await request(app, admin, "GET", `${BASE(org.id)}/${account.id}`)).status).toBe(404);
  });

  it("cannot be issued, rolled or granted past what the admin holds, nor reach the console", async () => {
    const { org, as } = await orgAdmin();
    const { account, key } = await robotWithKey(as, org.id);
    const keys = `${BASE(org.id)}/${account.id}/api-keys`;
    const wide = await request(app, as, "POST", keys, { name: "x", scopes: ["svc:system:orgs:read"] });
    expect(wide).toMatchObject({ status: 403, body: { code: "scope_not_held" } });
    const sysRole = await client.role.create({ data: { name: fresh("sys"), scope: "system" } });
    const patched = await request(app, as, "PATCH", `${BASE(org.id)}/${account.id}`, { role_ids: [sysRole.id] });
    expect(patched).toMatchObject({ status: 400, body: { code: "validation_failed" } });
    // A person of the organization is no service account: no key is issued for them here.
    const colleague = await createUser(client);
    await join(client, colleague.id, org.id);
    const forColleague = await request(app, as, "POST", `${BASE(org.id)}/${colleague.id}/api-keys`, {
      name: "x",
      scopes: ["svc:org:read"],
    });
    expect(forColleague.status).toBe(404);
    expect(await client.apiKey.count({ where: { user_id: colleague.id } })).toBe(0);
    // Its own key is no way to manage service accounts: the write permission is dangerous.
    const robot = { key: key.body.raw_key };
    expect((await request(app, robot, "POST", BASE(org.id), { username: fresh(), role_ids: [] })).status).toBe(403);
    // No password signs it in, and it cannot be given one.
    const session = new Browserless(app.baseUrl);
    const username = (await client.user.findUniqueOrThrow({ where: { id: account.id } })).username;
    expect(await session.signIn(username, PASSWORD)).toBe(false);
    expect(await session.signIn(username, "")).toBe(false);
  });

  it("is listed, renamed, restricted, rolled with grace and revoked through the organization", async () => {
    const { org, as } = await orgAdmin();
    const { account, key } = await robotWithKey(as, org.id);
    const one = `${BASE(org.id)}/${account.id}`;
    const list = await request<{ data: { id: string; roles: { name: string }[] }[] }>(app, as, "GET", BASE(org.id));
    expect(list.body.data.map((a) => a.id)).toEqual([account.id]);
    expect(list.body.data[0]!.roles.map((r) => r.name)).toEqual(["org_member"]);
    const renamed = await request(app, as, "PATCH", one, { display_name: "Renamed" });
    expect(renamed.body).toMatchObject({ display_name: "Renamed" });
    const restricted = await request(app, as, "PATCH", `${one}/api-keys/${key.body.id}`, {
      allowed_cidrs: ["10.0.0.0/8"],
    });
    expect(restricted.body).toMatchObject({ allowed_cidrs: ["10.0.0.0/8"] });
    expect((await request(app, { key: key.body.raw_key }, "GET", "/api/v1/me")).status).toBe(403);
    await request(app, as, "PATCH", `${one}/api-keys/${key.body.id}`, { allowed_cidrs: null });
    const rolled = await request<{ id: string; raw_key: string }>(
      app,
      as,
      "POST",
      `${one}/api-keys/${key.body.id}/roll`,
      { grace_period_seconds: 3600 },
    );
    expect(rolled.status).toBe(201);
    expect(rolled.headers.get("location")).toBe(`${one}/api-keys/${rolled.body.id}`);
    for (const raw of [key.body.raw_key, rolled.body.raw_key])
      expect((await request(app, { key: raw }, "GET", "/api/v1/me")).status).toBe(200);
    const revoked = await request(app, as, "DELETE", `${one}/api-keys/${rolled.body.id}`);
    expect(revoked.body).toMatchObject({ is_active: false });
    expect((await request(app, { key: rolled.body.raw_key }, "GET", "/api/v1/me")).status).toBe(401);
    const listed = await request<{ data: { id: string }[] }>(app, as, "GET", `${one}/api-keys?active=true`);
    expect(listed.body.data.map((k) => k.id)).toEqual([key.body.id]);
  });

  it("follows the key policies, the organization's stricter values included (422 naming the setting)", async () => {
    const { org, as } = await orgAdmin();
    const settings = `/api/v1/organizations/${org.id}/settings`;
    const put = await request(app, as, "PUT", `${settings}/${KEY_POLICY.requireExpiry}`, { value: true });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const { key } = await robotWithKey(as, org.id);
    expect(key).toMatchObject({ status: 422, body: { code: "policy_violation", setting: KEY_POLICY.requireExpiry } });
    expect(key.headers.get("content-type")).toContain("application/problem+json");
    const { key: expiring } = await robotWithKey(as, org.id, {
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(expiring.status).toBe(201);
  });
});

describe("what a lesser manager or a deletion cannot do to an account's keys", () => {
  it("keeps a deleted account's keys dead after a restore through the users routes", async () => {
    const { org, as } = await orgAdmin();
    const { account, key } = await robotWithKey(as, org.id);
    const root = await createSysAdmin(client);
    const asRoot = { session: new Browserless(app.baseUrl) };
    expect(await asRoot.session.signIn(root.username, PASSWORD)).toBe(true);
    expect((await request(app, asRoot, "DELETE", `/api/v1/users/${account.id}`)).status).toBe(200);
    expect((await request(app, asRoot, "POST", `/api/v1/users/${account.id}/restore`)).status).toBe(200);
    expect((await request(app, { key: key.body.raw_key }, "GET", "/api/v1/me")).status).toBe(401);
    expect(await client.apiKey.count({ where: { user_id: account.id, is_active: true } })).toBe(0);
  });

  it("refuses a manager without the key's scopes its change and its revocation, and any key a limit past the ceiling", async () => {
    const { org, as } = await orgAdmin();
    // The admin's account acts on members; the lesser manager may run accounts but not members.
    const account = await request<{ id: string }>(app, as, "POST", BASE(org.id), {
      username: fresh(),
      role_ids: [await roleId(client, "org_admin")],
    });
    const keys = `${BASE(org.id)}/${account.body.id}/api-keys`;
    const key = await request<{ id: string; raw_key: string }>(app, as, "POST", keys, {
      name: "members",
      scopes: ["svc:org:read", "svc:org:members:write"],
      allowed_cidrs: ["127.0.0.1/32"],
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const lesserRole = await createRole(client, "org", [
      "svc:org:read",
      "svc:org:service_accounts:read",
      "svc:org:service_accounts:write",
    ]);
    const lesser = await createUser(client);
    await join(client, lesser.id, org.id);
    await grant(client, lesser.id, lesserRole.id, org.id);
    const asLesser = { session: new Browserless(app.baseUrl) };
    expect(await asLesser.session.signIn(lesser.username, PASSWORD)).toBe(true);
    const one = `${keys}/${key.body.id}`;
    for (const body of [{ allowed_cidrs: null }, { rate_limit: { requests: 10_000_000, window_seconds: 1 } }]) {
      const changed = await request(app, asLesser, "PATCH", one, body);
      expect(changed, JSON.stringify(body)).toMatchObject({ status: 403, body: { code: "scope_not_held" } });
    }
    expect((await request(app, asLesser, "DELETE", one)).status).toBe(403);
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: key.body.id } });
    expect(row).toMatchObject({ is_active: true, allowed_cidrs: ["127.0.0.1/32"] });
    // Not even the organization's admin may lift a key past the platform's ceiling.
    const past = await request(app, as, "PATCH", one, { rate_limit: { requests: 10_000_000, window_seconds: 1 } });
    expect(past).toMatchObject({ status: 422, body: { code: "policy_violation" } });
  });
});

describe("revoking every key of a user", () => {
  it("answers how many it revoked, each refused at once and audited", async () => {
    const admin = await createSysAdmin(client);
    const session = new Browserless(app.baseUrl);
    expect(await session.signIn(admin.username, PASSWORD)).toBe(true);
    const { org, as } = await orgAdmin();
    const { account, key } = await robotWithKey(as, org.id);
    const second = await request<{ id: string; raw_key: string }>(
      app,
      as,
      "POST",
      `${BASE(org.id)}/${account.id}/api-keys`,
      { name: "second", scopes: ["svc:org:read"] },
    );
    const path = `/api/admin/users/${account.id}/api-keys/revoke-all`;
    // Not for an organization's admin, nor for anyone's key.
    expect((await request(app, as, "POST", path)).status).toBe(403);
    expect((await request(app, { key: key.body.raw_key }, "POST", path)).status).toBe(403);
    const answer = await request(app, { session }, "POST", path);
    expect(answer).toMatchObject({ status: 200, body: { revoked: 2 } });
    for (const raw of [key.body.raw_key, second.body.raw_key])
      expect((await request(app, { key: raw }, "GET", "/api/v1/me")).status).toBe(401);
    const events = await client.auditEvent.findMany({
      where: { action: "revokeApiKey", target_id: { in: [key.body.id, second.body.id] } },
    });
    expect(events).toHaveLength(2);
    expect((await request(app, { session }, "POST", path)).body).toEqual({ revoked: 0 });
    const missing = `/api/admin/users/0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22/api-keys/revoke-all`;
    expect((await request(app, { session }, "POST", missing)).status).toBe(404);
  });
});
