import { describe, expect, it, vi } from "vitest";
import { ALL_PERMISSIONS } from "@/lib/permissions";
import { verifyClientSecret } from "@/server/services/oauth-clients/service";
import { grantRole } from "@/server/services/roles/grants";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, createUserWith, roleId, seedRoles } from "@/test/fixtures";
import { callerAs, domainOf, failure, pathsOf, sessionActor } from "@/test/trpc";
import { handleTRPCRequest } from "./http";
import { createCaller } from "./root";
import { dataLayer } from "@/server/db/data-layer";

// The console's identity procedures (users, roles and grants, an organization's members, OAuth
// clients) against this file's own PostgreSQL database: called in-process with real session
// actors, and over the HTTP endpoint for the error shape a form reads.

vi.mock("@/server/session", () => ({
  currentSessionActor: vi.fn(async () => {
    throw new Error("the session must not be read");
  }),
}));

// grantRole stays the real service; one test runs it as a lesser admin would reach it.
vi.mock("@/server/services/roles/grants", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/server/services/roles/grants")>();
  return { ...original, grantRole: vi.fn(original.grantRole) };
});

const { client } = await testDatabase();
await seedRoles(client);

// The seed's first sys_admin is the only one: the last-sys_admin rule applies to it.
const admin = await client.user.findFirstOrThrow({ where: { username: "root-admin" } });
const adminActor = await sessionActor(admin.id);
const asAdmin = createCaller({ actor: adminActor });

// Holds every identity write permission through a custom system role, but is not a sys_admin.
const writer = await createUserWith(client, [
  "svc:system:users:read",
  "svc:system:users:write",
  "svc:system:roles:read",
  "svc:system:roles:write",
  "svc:system:oauth_clients:write",
]);
const asWriter = await callerAs(writer.id);

// The org_admin of organization A; organization B is another tenant's.
const orgA = await createOrg(client);
const orgB = await createOrg(client);
const orgAdmin = await createOrgAdmin(client, orgA.id);
const asOrgAdmin = await callerAs(orgAdmin.id);

const MISSING = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b";

let counter = 0;
const unique = (label: string) => `${label}-${++counter}`;

describe("authorization", () => {
  it("answers UNAUTHORIZED without a session", async () => {
    const error = await failure(createCaller({ actor: null }).users.list({}));
    expect(error.code).toBe("UNAUTHORIZED");
  });

  it("keeps the writes for sys_admins: holding the write permissions is not enough", async () => {
    const users = await client.user.count();
    const sysAdminRole = await roleId(client, "sys_admin");
    const calls = [
      () => asWriter.users.list({}),
      () => asWriter.users.create({ username: unique("nope"), password: null }),
      () => asWriter.users.delete({ user_id: orgAdmin.id }),
      () => asWriter.roles.create({ name: unique("nope"), scope: "system", permissions: [] }),
      () => asWriter.roles.grant({ user_id: writer.id, role_id: sysAdminRole, org_id: null }),
      () =>
        asWriter.oauthClients.register({
          name: "nope",
          client_type: "public",
          redirect_uris: ["https://app.example/cb"],
          allowed_grant_types: ["authorization_code"],
        }),
    ];
    for (const call of calls) {
      const error = await failure(call());
      expect(error.code).toBe("FORBIDDEN");
      expect(domainOf(error).details.required_permission).toBe("svc:system:admin");
    }
    expect(await client.user.count()).toBe(users);
    expect(await client.oauth2Client.count()).toBe(0);
  });

  it("checks member procedures in the organization of the input: another tenant's looks missing", async () => {
    const list = await failure(asOrgAdmin.members.list({ org_id: orgB.id }));
    expect([list.code, domainOf(list).code]).toEqual(["FORBIDDEN", "forbidden"]);
    for (const call of [
      () => asOrgAdmin.members.get({ org_id: orgB.id, user_id: orgAdmin.id }),
      () => asOrgAdmin.members.add({ org_id: orgB.id, user_id: orgAdmin.id }),
      () => asOrgAdmin.members.grantRole({ org_id: orgB.id, user_id: orgAdmin.id, role_id: MISSING }),
    ]) {
      const error = await failure(call());
      expect([error.code, domainOf(error).code]).toEqual(["NOT_FOUND", "not_found"]);
    }
    // In its own organization the org admin holds the permission, but the console is for sys_admins.
    const own = await failure(asOrgAdmin.members.list({ org_id: orgA.id }));
    expect(own.code).toBe("FORBIDDEN");
    expect(domainOf(own).details.required_permission).toBe("svc:system:admin");
    expect(await client.userOrgMembership.count({ where: { org_id: orgB.id } })).toBe(0);
  });
});

describe("users", () => {
  it("creates a user with a password and an OAuth-only one, finds, updates and reads them", async () => {
    const withPassword = await asAdmin.users.create({
      username: unique("ada"),
      email: "Ada@Example.test",
      display_name: "Ada",
      password: "a-long-password-1",
    });
    expect(withPassword).toMatchObject({ email: "ada@example.test", has_password: true, is_deleted: false });
    expect(JSON.stringify(withPassword)).not.toContain("password_hash");
    const oauthOnly = await asAdmin.users.create({ username: unique("grace") });
    expect(oauthOnly.has_password).toBe(false);

    expect((await asAdmin.users.list({ q: "ADA@example" })).data.map((u) => u.id)).toEqual([withPassword.id]);
    const updated = await asAdmin.users.update({
      user_id: oauthOnly.id,
      display_name: "Grace",
      timezone: "Europe/Paris",
    });
    expect(updated).toMatchObject({ display_name: "Grace", timezone: "Europe/Paris" });
    expect(await asAdmin.users.get({ user_id: oauthOnly.id })).toEqual(updated);
  });

  it("names the field of a validation error or a clash", async () => {
    const invalid = await failure(asAdmin.users.create({ username: "no spaces", password: "short" }));
    expect(invalid.code).toBe("BAD_REQUEST");
    expect(pathsOf(invalid).sort()).toEqual(["password", "username"]);

    const taken = await asAdmin.users.create({ username: unique("taken") });
    const clash = await failure(asAdmin.users.create({ username: taken.username }));
    expect(clash.code).toBe("CONFLICT");
    expect(pathsOf(clash)).toEqual(["username"]);
  });

  it("resets a password to a generated one, shown in the answer only", async () => {
    const user = await asAdmin.users.create({ username: unique("reset") });
    const reset = await asAdmin.users.resetPassword({ user_id: user.id });
    expect(reset.password).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(reset.user.has_password).toBe(true);
    const given = await asAdmin.users.resetPassword({ user_id: user.id, password: "another-long-password" });
    expect(given.password).toBeNull();
  });

  it("deletes softly, shows deleted users on request, and restores them", async () => {
    const user = await asAdmin.users.create({ username: unique("gone") });
    await asAdmin.users.delete({ user_id: user.id });
    expect((await asAdmin.users.list({ q: user.username })).data).toEqual([]);
    expect((await asAdmin.users.list({ q: user.username, include_deleted: "true" })).data).toEqual([
      expect.objectContaining({ id: user.id, is_deleted: true }),
    ]);
    expect((await failure(asAdmin.users.get({ user_id: user.id }))).code).toBe("NOT_FOUND");
    expect((await asAdmin.users.get({ user_id: user.id, include_deleted: "true" })).is_deleted).toBe(true);
    expect((await asAdmin.users.restore({ user_id: user.id })).is_deleted).toBe(false);
  });

  it("lists and unlinks OAuth identities", async () => {
    const user = await asAdmin.users.create({ username: unique("linked") });
    const identity = await client.userOauthIdentity.create({
      data: { user_id: user.id, provider: "oauth2", provider_user_id: unique("sub") },
    });
    expect((await asAdmin.users.identities({ user_id: user.id })).data).toEqual([
      expect.objectContaining({ id: identity.id, provider: "oauth2" }),
    ]);
    await asAdmin.users.unlinkIdentity({ user_id: user.id, identity_id: identity.id });
    expect((await asAdmin.users.identities({ user_id: user.id })).data).toEqual([]);
    expect((await failure(asAdmin.users.unlinkIdentity({ user_id: user.id, identity_id: identity.id }))).code).toBe(
      "NOT_FOUND",
    );
  });
});

describe("roles and grants", () => {
  it("offers the catalog with its dangerous permissions marked", async () => {
    const { data } = await asAdmin.roles.catalog();
    expect(data.map((p) => p.permission)).toEqual([...ALL_PERMISSIONS]);
    expect(data.find((p) => p.permission === "svc:org:members:write")).toMatchObject({ scope: "org", dangerous: true });
    expect(data.find((p) => p.permission === "svc:org:members:read")).toMatchObject({ scope: "org", dangerous: false });
  });

  it("creates, edits and deletes a custom role; an org role holds org permissions only", async () => {
    const wrong = await failure(
      asAdmin.roles.create({
        name: unique("auditors"),
        scope: "org",
        permissions: ["svc:org:read", "svc:system:audit:read"],
      }),
    );
    expect(wrong.code).toBe("BAD_REQUEST");
    expect(pathsOf(wrong)).toEqual(["permissions.1"]);

    const role = await asAdmin.roles.create({
      name: unique("auditors"),
      description: "Reads",
      scope: "org",
      permissions: ["svc:org:read"],
    });
    const edited = await asAdmin.roles.update({
      role_id: role.id,
      permissions: ["svc:org:read", "svc:org:members:read"],
    });
    expect(edited.permissions).toEqual(["svc:org:read", "svc:org:members:read"]);
    const immutable = await failure(asAdmin.roles.update({ role_id: role.id, scope: "system" }));
    expect([immutable.code, domainOf(immutable).code]).toEqual(["BAD_REQUEST", "immutable_field"]);
    await asAdmin.roles.delete({ role_id: role.id });
    expect((await asAdmin.roles.list({ q: role.name })).data).toEqual([]);
  });

  it("keeps built-in roles: no rename, no deletion", async () => {
    const orgAdminRole = await roleId(client, "org_admin");
    const rename = await failure(asAdmin.roles.update({ role_id: orgAdminRole, name: "tenant_admin" }));
    expect([rename.code, domainOf(rename).code]).toEqual(["BAD_REQUEST", "immutable_field"]);
    const remove = await failure(asAdmin.roles.delete({ role_id: orgAdminRole }));
    expect(remove.code).toBe("CONFLICT");
    expect((await asAdmin.roles.get({ role_id: orgAdminRole })).name).toBe("org_admin");
  });

  it("grants a system role globally and an org role in an organization the user belongs to, with effective permissions by source", async () => {
    const user = await asAdmin.users.create({ username: unique("granted") });
    const reader = await asAdmin.roles.create({
      name: unique("reader"),
      scope: "system",
      permissions: ["svc:system:users:read"],
    });
    const orgMember = await roleId(client, "org_member");

    const notMember = await failure(asAdmin.roles.grant({ user_id: user.id, role_id: orgMember, org_id: orgA.id }));
    expect(notMember.code).toBe("CONFLICT");
    const systemInOrg = await failure(asAdmin.roles.grant({ user_id: user.id, role_id: reader.id, org_id: orgA.id }));
    expect([systemInOrg.code, ...pathsOf(systemInOrg)]).toEqual(["BAD_REQUEST", "role_id"]);

    const global = await asAdmin.roles.grant({ user_id: user.id, role_id: reader.id, org_id: null });
    await asAdmin.members.add({ org_id: orgA.id, user_id: user.id });
    const inOrg = await asAdmin.roles.grant({ user_id: user.id, role_id: orgMember, org_id: orgA.id });
    expect(inOrg).toMatchObject({ org_id: orgA.id, org_name: orgA.name, role: { name: "org_member", scope: "org" } });
    expect((await asAdmin.roles.grants({ user_id: user.id })).data.map((g) => g.id)).toEqual([global.id, inOrg.id]);

    const effective = await asAdmin.roles.effective({ user_id: user.id });
    expect(effective.is_sys_admin).toBe(false);
    expect(effective.global).toEqual([
      {
        permission: "svc:system:users:read",
        dangerous: false,
        sources: [{ role_id: reader.id, role_name: reader.name, org_id: null }],
      },
    ]);
    const inA = effective.organizations.find((o) => o.id === orgA.id);
    expect(inA?.permissions.find((p) => p.permission === "svc:org:read")?.sources).toEqual([
      { role_id: orgMember, role_name: "org_member", org_id: orgA.id },
    ]);
    expect(inA?.permissions.map((p) => p.permission)).toContain("svc:system:users:read");

    await asAdmin.roles.revoke({ user_id: user.id, grant_id: global.id });
    expect((await asAdmin.roles.effective({ user_id: user.id })).global).toEqual([]);
  });

  it("maps a no-escalation refusal to FORBIDDEN with domainCode scope_not_held, and stores nothing", async () => {
    // sys_admins pass the rule, and only sys_admins reach the console; so the real service is run
    // as a lesser admin would reach it: holding roles:write, but not the org permissions granted.
    const lesser = await sessionActor(writer.id);
    const original = vi.mocked(grantRole).getMockImplementation();
    if (!original) throw new Error("grantRole is not wrapped");
    vi.mocked(grantRole).mockImplementation((ctx, userId, input) => original({ ...ctx, actor: lesser }, userId, input));
    try {
      const user = await asAdmin.users.create({ username: unique("escalate") });
      await asAdmin.members.add({ org_id: orgA.id, user_id: user.id });
      const before = await client.userRole.count();
      const error = await failure(
        asAdmin.roles.grant({ user_id: user.id, role_id: await roleId(client, "org_admin"), org_id: orgA.id }),
      );
      expect(error.code).toBe("FORBIDDEN");
      expect(domainOf(error).code).toBe("scope_not_held");
      expect(domainOf(error).details.scopes).toContain("svc:org:members:write");
      expect(await client.userRole.count()).toBe(before);

      // What a form reads over HTTP.
      const response = await handleTRPCRequest(
        new Request("http://console.test/api/trpc/roles.grant", {
          method: "POST",
          headers: { host: "console.test", origin: "http://console.test", "content-type": "application/json" },
          body: JSON.stringify({
            json: { user_id: user.id, role_id: await roleId(client, "org_admin"), org_id: orgA.id },
          }),
        }),
        async () => adminActor,
      );
      expect(response.status).toBe(403);
      const body = (await response.json()) as { error: { json: { message: string; data: Record<string, unknown> } } };
      expect(body.error.json.data).toMatchObject({ code: "FORBIDDEN", httpStatus: 403, domainCode: "scope_not_held" });
      expect(body.error.json.message).toMatch(/You do not hold .*svc:org:members:write/);
    } finally {
      vi.mocked(grantRole).mockImplementation(original);
    }
  });

  it("refuses to delete the last sys_admin or revoke their role: CONFLICT", async () => {
    const sysAdminGrant = (await asAdmin.roles.grants({ user_id: admin.id })).data.find(
      (g) => g.role.name === "sys_admin" && g.org_id === null,
    );
    if (!sysAdminGrant) throw new Error("the seed's admin holds sys_admin");
    const remove = await failure(asAdmin.users.delete({ user_id: admin.id }));
    expect([remove.code, domainOf(remove).code]).toEqual(["CONFLICT", "conflict"]);
    const revoke = await failure(asAdmin.roles.revoke({ user_id: admin.id, grant_id: sysAdminGrant.id }));
    expect(revoke.code).toBe("CONFLICT");
    expect(await client.userRole.count({ where: { id: sysAdminGrant.id } })).toBe(1);

    // With a second sys_admin, either may go.
    const second = await asAdmin.users.create({ username: unique("second-admin"), password: "a-long-password-2" });
    const secondGrant = await asAdmin.roles.grant({ user_id: second.id, role_id: sysAdminGrant.role.id, org_id: null });
    await asAdmin.roles.revoke({ user_id: second.id, grant_id: secondGrant.id });
    await asAdmin.users.delete({ user_id: second.id });
  });
});

describe("members", () => {
  it("adds a member, grants and revokes org roles there, and removes the member with their grants", async () => {
    const org = await createOrg(client);
    const user = await asAdmin.users.create({ username: unique("member"), display_name: "Member" });
    const added = await asAdmin.members.add({ org_id: org.id, user_id: user.id });
    expect(added).toMatchObject({ org_id: org.id, user_id: user.id, roles: [] });
    const again = await failure(asAdmin.members.add({ org_id: org.id, user_id: user.id }));
    expect([again.code, ...pathsOf(again)]).toEqual(["CONFLICT", "user_id"]);

    const orgMember = await roleId(client, "org_member");
    const granted = await asAdmin.members.grantRole({ org_id: org.id, user_id: user.id, role_id: orgMember });
    expect(granted).toMatchObject({ org_id: org.id, role: { id: orgMember } });
    const systemRole = await failure(
      asAdmin.members.grantRole({ org_id: org.id, user_id: user.id, role_id: await roleId(client, "sys_admin") }),
    );
    expect(systemRole.code).toBe("BAD_REQUEST");
    expect((await asAdmin.members.list({ org_id: org.id })).data).toEqual([
      expect.objectContaining({ user_id: user.id, roles: [{ id: orgMember, name: "org_member" }] }),
    ]);
    expect((await asAdmin.users.organizations({ user_id: user.id })).data).toEqual([
      expect.objectContaining({ org_id: org.id, roles: [{ id: orgMember, name: "org_member" }] }),
    ]);

    await asAdmin.members.revokeRole({ org_id: org.id, user_id: user.id, role_id: orgMember });
    expect((await asAdmin.members.get({ org_id: org.id, user_id: user.id })).roles).toEqual([]);
    await asAdmin.members.grantRole({ org_id: org.id, user_id: user.id, role_id: orgMember });
    await asAdmin.members.remove({ org_id: org.id, user_id: user.id });
    expect((await asAdmin.members.list({ org_id: org.id })).data).toEqual([]);
    expect(await client.userRole.count({ where: { user_id: user.id, org_id: org.id } })).toBe(0);
  });

  it("searches members and pages with the cursor TanStack's infinite queries send", async () => {
    const org = await createOrg(client);
    for (let i = 0; i < 3; i++) {
      const user = await asAdmin.users.create({ username: unique("paged") });
      await asAdmin.members.add({ org_id: org.id, user_id: user.id });
    }
    const first = await asAdmin.members.list({ org_id: org.id, limit: 2 });
    expect(first.data).toHaveLength(2);
    const next = { org_id: org.id, limit: 2, cursor: first.next_cursor ?? undefined, direction: "forward" };
    expect((await asAdmin.members.list(next)).data).toHaveLength(1);
    expect((await asAdmin.members.list({ org_id: org.id, q: first.data[0]?.username })).data).toHaveLength(1);
  });
});

describe("oauthClients", () => {
  const confidential = {
    client_type: "confidential" as const,
    is_first_party: true,
    redirect_uris: ["https://app.example/callback", "http://127.0.0.1:8080/cb"],
    allowed_grant_types: ["authorization_code" as const, "refresh_token" as const],
    allowed_scopes: ["svc:org:read"],
  };

  it("registers a confidential client, shows its secret once, rotates it, deactivates and deletes it", async () => {
    const created = await asAdmin.oauthClients.register({ name: unique("portal"), ...confidential });
    expect(created.client_secret).toMatch(/^cds_/);
    expect(created).toMatchObject({ has_secret: true, is_active: true, is_first_party: true });
    const listed = await asAdmin.oauthClients.list({ q: created.client_id });
    expect(listed.data.map((c) => c.client_id)).toEqual([created.client_id]);
    expect(JSON.stringify(listed)).not.toContain(created.client_secret);
    expect(JSON.stringify(await asAdmin.oauthClients.get({ client_id: created.client_id }))).not.toContain(
      "client_secret",
    );

    const rotated = await asAdmin.oauthClients.rotateSecret({ client_id: created.client_id });
    expect(rotated.client_secret).toMatch(/^cds_/);
    expect(rotated.client_secret).not.toBe(created.client_secret);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, created.client_secret as string)).toBe(false);
    expect(await verifyClientSecret(dataLayer("test"), created.client_id, rotated.client_secret as string)).toBe(true);

    const inactive = await asAdmin.oauthClients.update({
      client_id: created.client_id,
      is_active: false,
      name: "Renamed",
    });
    expect(inactive).toMatchObject({ is_active: false, name: "Renamed" });
    expect((await asAdmin.oauthClients.list({ q: created.client_id, active: "true" })).data).toEqual([]);
    await asAdmin.oauthClients.delete({ client_id: created.client_id });
    expect((await asAdmin.oauthClients.list({ q: created.client_id })).data).toEqual([]);
    expect(
      (await asAdmin.oauthClients.list({ q: created.client_id, include_deleted: "true" })).data[0]?.is_deleted,
    ).toBe(true);
  });

  it("names the field of a bad redirect URI, grant type or scope", async () => {
    const before = await client.oauth2Client.count();
    const badUris = await failure(
      asAdmin.oauthClients.register({
        name: "bad",
        ...confidential,
        redirect_uris: ["http://app.example/cb", "https://app.example/cb#frag", "/relative"],
      }),
    );
    expect(badUris.code).toBe("BAD_REQUEST");
    expect(pathsOf(badUris)).toEqual(["redirect_uris.0", "redirect_uris.1", "redirect_uris.2"]);
    const publicSecret = await failure(
      asAdmin.oauthClients.register({
        name: "bad",
        ...confidential,
        client_type: "public",
        allowed_grant_types: ["client_credentials"],
      }),
    );
    expect(pathsOf(publicSecret)).toEqual(["allowed_grant_types"]);
    const unknownScope = await failure(
      asAdmin.oauthClients.register({ name: "bad", ...confidential, allowed_scopes: ["svc:nope"] }),
    );
    expect([unknownScope.code, domainOf(unknownScope).code, ...pathsOf(unknownScope)]).toEqual([
      "BAD_REQUEST",
      "unknown_scope",
      "allowed_scopes.0",
    ]);
    expect(await client.oauth2Client.count()).toBe(before);
  });

  it("has no secret to rotate for a public client (CONFLICT), and keeps client_type fixed", async () => {
    const pub = await asAdmin.oauthClients.register({
      name: unique("spa"),
      client_type: "public",
      redirect_uris: ["https://spa.example/cb"],
      allowed_grant_types: ["authorization_code"],
    });
    expect(pub.client_secret).toBeNull();
    expect((await failure(asAdmin.oauthClients.rotateSecret({ client_id: pub.client_id }))).code).toBe("CONFLICT");
    const fixed = await failure(asAdmin.oauthClients.update({ client_id: pub.client_id, client_type: "confidential" }));
    expect(domainOf(fixed).code).toBe("immutable_field");
  });
});
