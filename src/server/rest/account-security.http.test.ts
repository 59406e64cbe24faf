import { describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, request, startApp, type Caller } from "@/test/app";
import { appOnOwnDatabase, orgKey } from "@/test/suite";
import {
  createOrg,
  createOrgAdmin,
  createOrgUser,
  createRole,
  createSysAdmin,
  createUser,
  createUserWith,
  join,
  PASSWORD,
} from "@/test/fixtures";
import { readContext } from "@/server/db/context";

// Account and tenant security over real HTTP, as an attacker would try it: a lesser admin going
// for a sys_admin's credentials, members reading each other's chats, another site riding the
// console's cookie, sessions that outlive a password reset, a suspended organization.

const { client, url, app } = await appOnOwnDatabase();
const call = <T = Record<string, unknown>>(as: Caller, method: string, path: string, body?: unknown) =>
  request<T>(app, as, method, path, body);

async function signedIn(userId: string, target = app): Promise<Browserless> {
  const user = await client.user.findUniqueOrThrow({ where: { id: userId } });
  const browser = new Browserless(target.baseUrl);
  expect(await browser.signIn(user.username, PASSWORD)).toBe(true);
  return browser;
}

const root = await createSysAdmin(client);
const asRoot: Caller = { session: await signedIn(root.id) };

// A user management admin: a custom system role with users:read and users:write, not a sys_admin.
const lesser = await createUserWith(client, ["svc:system:users:read", "svc:system:users:write"]);
const asLesser: Caller = { session: await signedIn(lesser.id) };

describe("a lesser admin cannot take over a greater user", () => {
  it("refuses to touch a sys_admin's password, username, email, identities or account (403), changing nothing", async () => {
    const victim = await createSysAdmin(client);
    const identity = await client.userOauthIdentity.create({
      data: { user_id: victim.id, provider: "github", provider_user_id: `gh-${victim.id}` },
    });
    const before = await client.user.findUniqueOrThrow({ where: { id: victim.id } });
    const path = `/api/v1/users/${victim.id}`;
    for (const [method, suffix, body] of [
      ["POST", "/password", { password: "attacker-chosen-password" }],
      ["POST", "/password", {}],
      ["PATCH", "", { email: "attacker@example.test" }],
      ["PATCH", "", { username: "taken-over" }],
      ["DELETE", `/identities/${identity.id}`, undefined],
      ["DELETE", "", undefined],
    ] as const) {
      const refused = await call(asLesser, method, `${path}${suffix}`, body);
      expect(refused, `${method} ${suffix}`).toMatchObject({ status: 403, body: { code: "forbidden" } });
    }
    expect(await client.user.findUniqueOrThrow({ where: { id: victim.id } })).toEqual(before);
    expect(await client.userOauthIdentity.count({ where: { id: identity.id } })).toBe(1);
    // The next try: the sys_admin's password as the attacker would have set it does not sign in.
    expect(await new Browserless(app.baseUrl).signIn(victim.username, "attacker-chosen-password")).toBe(false);
  });

  it("refuses a target holding what the actor does not (an org admin), and allows one holding less", async () => {
    const org = await createOrg(client);
    const orgAdmin = await createOrgAdmin(client, org.id);
    expect(
      await call(asLesser, "POST", `/api/v1/users/${orgAdmin.id}/password`, { password: "another long password" }),
    ).toMatchObject({ status: 403 });
    const plain = await createUser(client);
    expect((await call(asLesser, "PATCH", `/api/v1/users/${plain.id}`, { email: "plain@example.test" })).status).toBe(
      200,
    );
    expect(
      (await call(asLesser, "POST", `/api/v1/users/${plain.id}/password`, { password: "another long password" }))
        .status,
    ).toBe(200);
    // Profile fields that sign nobody in stay open to the user manager.
    expect((await call(asLesser, "PATCH", `/api/v1/users/${orgAdmin.id}`, { display_name: "Renamed" })).status).toBe(
      200,
    );
  });

  it("refuses to restore a deleted sys_admin", async () => {
    const ghost = await createSysAdmin(client);
    expect((await call(asRoot, "DELETE", `/api/v1/users/${ghost.id}`)).status).toBe(200);
    // Restoring is a sys_admin's call anyway; a lesser admin gets no further than a 403.
    expect((await call(asLesser, "POST", `/api/v1/users/${ghost.id}/restore`)).status).toBe(403);
    expect((await client.user.findUniqueOrThrow({ where: { id: ghost.id } })).is_deleted).toBe(true);
  });

  it("removes a member from an organization only for someone who could revoke the member's org roles", async () => {
    const org = await createOrg(client);
    // The actor administers members there but does not hold every org permission of org_admin.
    const manager = await createOrgUser(
      client,
      org.id,
      await createRole(client, "org", ["svc:org:members:read", "svc:org:members:write"]),
    );
    const admin = await createOrgAdmin(client, org.id);
    const member = await createUser(client);
    await join(client, member.id, org.id);
    const asManager: Caller = { session: await signedIn(manager.id) };
    expect(await call(asManager, "DELETE", `/api/v1/organizations/${org.id}/members/${admin.id}`)).toMatchObject({
      status: 403,
      body: { code: "scope_not_held" },
    });
    expect(await client.userOrgMembership.count({ where: { user_id: admin.id, org_id: org.id } })).toBe(1);
    expect((await call(asManager, "DELETE", `/api/v1/organizations/${org.id}/members/${member.id}`)).status).toBe(200);
  });
});

describe("console sessions end when they must", () => {
  it("ends a user's sessions, in every process, when their password is reset", async () => {
    const user = await createUser(client);
    const session = await signedIn(user.id);
    const other = await startApp(url);
    // The same cookie works on another process of the deployment.
    const cookie = session.cookieHeader();
    const me = (target: typeof app) => target.fetch("/api/v1/me", { headers: { cookie } });
    expect((await me(app)).status).toBe(200);
    expect((await me(other)).status).toBe(200);
    expect(
      (await call(asRoot, "POST", `/api/v1/users/${user.id}/password`, { password: "a brand new password" })).status,
    ).toBe(200);
    expect((await me(app)).status).toBe(401);
    await vi.waitFor(async () => expect((await me(other)).status).toBe(401), { timeout: 1_000, interval: 20 });
    // The new password signs in afresh.
    expect(await new Browserless(app.baseUrl).signIn(user.username, "a brand new password")).toBe(true);
  });

  it("ends them when an identity is unlinked, and when the user is deleted", async () => {
    const user = await createUser(client);
    const identity = await client.userOauthIdentity.create({
      data: { user_id: user.id, provider: "google", provider_user_id: `g-${user.id}` },
    });
    const first = await signedIn(user.id);
    expect((await first.fetch("/api/v1/me")).status).toBe(200);
    expect((await call(asRoot, "DELETE", `/api/v1/users/${user.id}/identities/${identity.id}`)).status).toBe(200);
    expect((await first.fetch("/api/v1/me")).status).toBe(401);
    const second = await signedIn(user.id);
    expect((await call(asRoot, "DELETE", `/api/v1/users/${user.id}`)).status).toBe(200);
    expect((await second.fetch("/api/v1/me")).status).toBe(401);
  });

  it("signs out everywhere on request, from a session only", async () => {
    const user = await createSysAdmin(client);
    const laptop = await signedIn(user.id);
    const phone = await signedIn(user.id);
    const key = await createApiKey(readContext(systemActor("test")), user.id, {
      name: "k",
      scopes: ["svc:system:users:read"],
      expires_at: null,
    });
    expect(await call({ key: key.raw_key }, "POST", "/api/v1/me/sign-out-everywhere")).toMatchObject({ status: 403 });
    expect((await laptop.fetch("/api/v1/me")).status).toBe(200);
    expect(await call({ session: phone }, "POST", "/api/v1/me/sign-out-everywhere")).toMatchObject({
      status: 200,
      body: { signed_out: true },
    });
    expect((await laptop.fetch("/api/v1/me")).status).toBe(401);
    expect((await phone.fetch("/api/v1/me")).status).toBe(401);
    // API keys are not sessions: they keep working.
    expect((await app.fetch("/api/v1/me", { headers: { "x-api-key": key.raw_key } })).status).toBe(200);
  });
});

describe("another site cannot ride the console's cookie", () => {
  it("refuses a cookie-carried write from another origin (403, nothing created), and lets the console's own pages write", async () => {
    const { session } = asRoot as { session: Browserless };
    const before = await client.organization.count();
    const body = JSON.stringify({ name: "Planted by evil.example" });
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "same-site" },
      { origin: "null" },
      { "sec-fetch-site": "none" },
      // A browser without Sec-Fetch-Site, and a host header no proxy vouches for (none is configured).
      { origin: "https://evil.example", "x-forwarded-host": "evil.example" },
      { origin: "http://evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" },
    ];
    for (const headers of crossSite) {
      const response = await session.fetch("/api/v1/organizations", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await client.organization.count()).toBe(before);
    const own = await session.fetch("/api/v1/organizations", {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.baseUrl },
      body: JSON.stringify({ name: "Made here" }),
    });
    expect(own.status).toBe(201);
    // Reads carry no such risk, and API keys are never sent by a browser on its own.
    expect((await session.fetch("/api/v1/organizations", { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(
      200,
    );
    const key = await createApiKey(readContext(systemActor("test")), root.id, {
      name: "k",
      scopes: ["svc:system:orgs:write"],
      expires_at: null,
    });
    const viaKey = await app.fetch("/api/v1/organizations", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.raw_key, origin: "https://evil.example" },
      body: JSON.stringify({ name: "Integration" }),
    });
    expect(viaKey.status).toBe(201);
  });
});

describe("a forwarded host counts only as far as the configured proxies vouch for it", () => {
  it("takes the host the outermost trusted proxy saw, and no host a client put before it", async () => {
    const proxied = await startApp(url, { SVC_TRUSTED_PROXY_HOPS: "1" });
    const session = await signedIn(root.id, proxied);
    const write = (headers: Record<string, string>) =>
      session.fetch("/api/v1/organizations", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "Behind a proxy" }),
      });
    // The proxy says which host the browser used; the page of that host may write.
    expect((await write({ origin: "https://console.example", "x-forwarded-host": "console.example" })).status).toBe(
      201,
    );
    // A client's own value before the proxy's is not believed, nor is one the proxy appended after it.
    expect(
      (await write({ origin: "https://evil.example", "x-forwarded-host": "evil.example, console.example" })).status,
    ).toBe(403);
    expect(
      (await write({ origin: "https://console.example", "x-forwarded-host": "console.example, evil.example" })).status,
    ).toBe(403);
  });
});

const chatOrg = await createOrg(client);
const instance = await client.orchestratorInstance.create({
  data: { org_id: chatOrg.id, name: "bot", framework_type: "langgraph", mode: "supervisor" },
});

describe("conversations are private to their user", () => {
  const org = chatOrg;
  const member = async () => {
    const user = await createOrgUser(client, org.id, "org_member");
    const key = await createApiKey(readContext(systemActor("test")), user.id, {
      name: "m",
      scopes: ["svc:conversations:read", "svc:conversations:write"],
      expires_at: null,
    });
    return { user, as: { key: key.raw_key } as Caller };
  };
  const base = `/api/v1/organizations/${org.id}/conversations`;
  const message = (role = "user", source = "human") => ({
    role,
    source,
    content: "hi",
    turn_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
  });

  it("keeps another member's conversations out of a member's sight and reach", async () => {
    const alice = await member();
    const bob = await member();
    const chat = (await call<{ id: string }>(alice.as, "POST", base, { instance_id: instance.id, title: "alice's" }))
      .body;
    expect((await call(bob.as, "GET", `${base}/${chat.id}`)).status).toBe(404);
    expect((await call(bob.as, "GET", `${base}/${chat.id}/messages`)).status).toBe(404);
    expect((await call(bob.as, "POST", `${base}/${chat.id}/messages`, { messages: [message()] })).status).toBe(404);
    expect((await call(bob.as, "DELETE", `${base}/${chat.id}`)).status).toBe(404);
    expect(await call(bob.as, "GET", `${base}?user_id=${alice.user.id}`)).toMatchObject({
      status: 403,
      body: { required_permission: "svc:conversations:manage" },
    });
    expect(await call(bob.as, "POST", base, { instance_id: instance.id, user_id: alice.user.id })).toMatchObject({
      status: 403,
    });
    expect((await call<{ data: unknown[] }>(bob.as, "GET", base)).body.data).toEqual([]);
    expect(await client.message.count({ where: { conv_id: chat.id } })).toBe(0);
    // Alice sees and writes her own.
    expect((await call(alice.as, "POST", `${base}/${chat.id}/messages`, { messages: [message()] })).status).toBe(201);
    expect((await call<{ data: { id: string }[] }>(alice.as, "GET", base)).body.data.map((c) => c.id)).toEqual([
      chat.id,
    ]);
  });

  it("lets only the runtime (svc:conversations:manage) write replies, tools, imports and unmapped messages", async () => {
    const alice = await member();
    const chat = (await call<{ id: string }>(alice.as, "POST", base, { instance_id: instance.id })).body;
    const runtimeOnly = [
      ["assistant", "human"],
      ["user", "agent"],
      ["tool", "tool"],
      ["unknown", "import"],
      ["unknown", "human"],
    ] as const;
    for (const [role, source] of runtimeOnly) {
      expect(
        await call(alice.as, "POST", `${base}/${chat.id}/messages`, { messages: [message(role, source)] }),
      ).toMatchObject({ status: 403, body: { code: "forbidden" } });
    }
    expect(await client.message.count({ where: { conv_id: chat.id } })).toBe(0);
    const runtime = await createOrgAdmin(client, org.id);
    const asRuntime: Caller = {
      key: (await orgKey(runtime.id, "rt")).raw_key,
    };
    expect((await call(asRuntime, "GET", `${base}/${chat.id}`)).status).toBe(200);
    expect(
      (await call(asRuntime, "POST", `${base}/${chat.id}/messages`, { messages: [message("assistant", "agent")] }))
        .status,
    ).toBe(201);
    expect(
      (await call<{ data: unknown[] }>(asRuntime, "GET", `${base}?user_id=${alice.user.id}`)).body.data,
    ).toHaveLength(1);
    // What the runtime maps from anything else is `unknown`, and it is kept as such.
    for (const [role, source] of runtimeOnly) {
      const appended = await call<{ data: { role: string; source: string }[] }>(
        asRuntime,
        "POST",
        `${base}/${chat.id}/messages`,
        { messages: [message(role, source)] },
      );
      expect(appended, `${role} ${source}`).toMatchObject({ status: 201, body: { data: [{ role, source }] } });
    }
    const history = await call<{ data: { role: string; source: string }[] }>(
      asRuntime,
      "GET",
      `${base}/${chat.id}/messages?limit=100`,
    );
    expect(
      history.body.data
        .filter((m) => m.role === "unknown")
        .map((m) => m.source)
        .sort(),
    ).toEqual(["human", "import"]);
  });
});

describe("a suspended organization", () => {
  it("is read-only to its members and out of reach of their keys until the platform reactivates it", async () => {
    const org = (await call<{ id: string }>(asRoot, "POST", "/api/v1/organizations", { name: "Soon suspended" })).body;
    const path = `/api/v1/organizations/${org.id}`;
    const admin = await createOrgAdmin(client, org.id);
    const asAdminSession: Caller = { session: await signedIn(admin.id) };
    const asAdminKey: Caller = {
      key: (await orgKey(admin.id, "k")).raw_key,
    };
    expect((await call(asAdminKey, "GET", path)).status).toBe(200);

    expect((await call(asRoot, "PUT", `${path}/subscription`, { status: "suspended" })).status).toBe(200);

    const refused = await call<{ detail: string }>(asAdminSession, "PATCH", path, { display_name: "still mine" });
    expect(refused).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect(refused.body.detail).toMatch(/suspended/);
    expect((await call(asAdminSession, "GET", path)).status).toBe(200);
    expect((await call(asAdminKey, "GET", path)).status).toBe(404);
    expect(
      (await call<{ organizations: { id: string }[] }>(asAdminKey, "GET", "/api/v1/me")).body.organizations,
    ).toEqual([]);
    // The platform still manages it.
    expect((await call(asRoot, "PATCH", path, { display_name: "Under review" })).status).toBe(200);

    expect((await call(asRoot, "PUT", `${path}/subscription`, { status: "active" })).status).toBe(200);
    expect((await call(asAdminKey, "GET", path)).status).toBe(200);
    expect((await call(asAdminSession, "PATCH", path, { display_name: "back" })).status).toBe(200);
  });
});
