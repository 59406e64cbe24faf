import fc from "fast-check";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { CHANNEL } from "@/server/auth/invalidation";
import { holds } from "@/server/auth/authorize";
import { ALL_PERMISSIONS, ORG_PERMISSIONS, type Permission } from "@/lib/permissions";
import { mapDatabaseError } from "@/server/db/errors";
import { invoke } from "@/server/operations/invoke";
import { roleOperations } from "@/server/operations/roles";
import { cli, refusal, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createRole, createSysAdmin, createUser, grant, join, roleId, seedRoles } from "@/test/fixtures";
import { effectivePermissionsOf, grantOrgRole, grantRole, listGrants, revokeGrant, revokeOrgRole } from "./grants";
import { createRole as createRoleAs, deleteRole, listRoles, updateRole } from "./service";
import { acceptInvitation, createInvitation } from "@/server/services/invitations/service";
import { readContext } from "@/server/db/context";

const { client, url } = await testDatabase();
await seedRoles(client);

/** A non-sys_admin holding roles:write plus `extra` globally, and `inOrg` in a new organization. */
async function lesserAdmin(extra: Permission[] = [], inOrg: Permission[] = []) {
  const user = await createUser(client);
  const globalRole = await createRole(client, "system", [
    ...new Set<Permission>(["svc:system:roles:write", "svc:system:roles:read", ...extra]),
  ]);
  await grant(client, user.id, globalRole.id);
  const org = await createOrg(client);
  await join(client, user.id, org.id);
  if (inOrg.length > 0) await grant(client, user.id, (await createRole(client, "org", inOrg)).id, org.id);
  return { user, org, actor: () => sessionActor(client, user.id) };
}

describe("roles", () => {
  it("creates a custom role with catalog permissions only", async () => {
    const role = await createRoleAs(readContext(cli), {
      name: "Auditors",
      scope: "system",
      permissions: ["svc:system:audit:read", "svc:org:read"],
    });
    expect(role).toMatchObject({
      name: "Auditors",
      scope: "system",
      is_built_in: false,
      permissions: ["svc:system:audit:read", "svc:org:read"],
    });
    const before = await client.role.count();
    const error = await refusal(
      createRoleAs(readContext(cli), { name: "Bad", scope: "system", permissions: ["svc:org:read", "svc:nope"] }),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.details.errors).toEqual([{ path: "permissions.1", message: "svc:nope is not a known permission" }]);
    expect(await client.role.count()).toBe(before);
  });

  it("keeps system permissions out of org roles", async () => {
    const error = await refusal(
      createRoleAs(readContext(cli), {
        name: "Org thing",
        scope: "org",
        permissions: ["svc:org:read", "svc:system:users:write"],
      }),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.details.errors).toEqual([
      { path: "permissions.1", message: expect.stringContaining("system permission") },
    ]);
  });

  it("refuses a duplicate name with 409", async () => {
    await createRoleAs(readContext(cli), { name: "Twins", scope: "org", permissions: [] });
    expect((await refusal(createRoleAs(readContext(cli), { name: "Twins", scope: "org", permissions: [] }))).code).toBe(
      "conflict",
    );
    expect(
      (await refusal(createRoleAs(readContext(cli), { name: "sys_admin", scope: "system", permissions: [] }))).code,
    ).toBe("conflict");
  });

  it("never renames, re-scopes, re-permissions or deletes a built-in role", async () => {
    const id = await roleId(client, "org_admin");
    for (const change of [{ name: "org_boss" }, { permissions: ["svc:org:read"] }, { scope: "system" }]) {
      const error = await refusal(updateRole(readContext(cli), id, change));
      expect(error.code).toBe("immutable_field");
    }
    expect((await updateRole(readContext(cli), id, { description: "Runs an organization." })).description).toBe(
      "Runs an organization.",
    );
    expect((await refusal(deleteRole(readContext(cli), id))).code).toBe("conflict");
    expect(await client.role.findUniqueOrThrow({ where: { id } })).toMatchObject({
      name: "org_admin",
      scope: "org",
      is_deleted: false,
    });
    expect(await client.rolePermission.count({ where: { role_id: id } })).toBe(ORG_PERMISSIONS.length);
  });

  it("replaces a custom role's permissions and soft-deletes it", async () => {
    const role = await createRoleAs(readContext(cli), {
      name: "Editors",
      scope: "org",
      permissions: ["svc:org:read", "svc:org:write"],
    });
    const updated = await updateRole(readContext(cli), role.id, {
      name: "Writers",
      permissions: ["svc:org:read", "svc:central_points:write"],
    });
    expect(updated).toMatchObject({ name: "Writers", permissions: ["svc:org:read", "svc:central_points:write"] });
    expect((await refusal(updateRole(readContext(cli), role.id, { scope: "system" }))).code).toBe("immutable_field");
    expect((await deleteRole(readContext(cli), role.id)).is_deleted).toBe(true);
    const listed = await listRoles(readContext(cli), { limit: 100 });
    expect(listed.data.map((r) => r.id)).not.toContain(role.id);
    expect((await listRoles(readContext(cli), { limit: 100, include_deleted: true })).data.map((r) => r.id)).toContain(
      role.id,
    );
  });

  it("lets only sys_admins list deleted roles", async () => {
    const { actor } = await lesserAdmin();
    const asked = invoke(roleOperations.list, await actor(), {
      params: {},
      query: { include_deleted: "true" },
      body: () => undefined,
    });
    expect((await refusal(asked)).code).toBe("forbidden");
  });
});

describe("grants", () => {
  it("grants a system role only globally and an org role only in an organization the user is in", async () => {
    const user = await createUser(client);
    const org = await createOrg(client);
    const sys = await createRole(client, "system", ["svc:system:audit:read"]);
    const orgRole = await createRole(client, "org", ["svc:org:read"]);
    expect((await refusal(grantRole(readContext(cli), user.id, { role_id: sys.id, org_id: org.id }))).code).toBe(
      "validation_failed",
    );
    expect((await refusal(grantRole(readContext(cli), user.id, { role_id: orgRole.id, org_id: null }))).code).toBe(
      "validation_failed",
    );
    expect((await refusal(grantRole(readContext(cli), user.id, { role_id: orgRole.id, org_id: org.id }))).code).toBe(
      "conflict",
    );
    await join(client, user.id, org.id);
    const global = await grantRole(readContext(cli), user.id, { role_id: sys.id, org_id: null });
    const local = await grantRole(readContext(cli), user.id, { role_id: orgRole.id, org_id: org.id });
    expect(local).toMatchObject({ role: { id: orgRole.id, scope: "org" }, org_id: org.id, org_name: org.name });
    expect((await listGrants(readContext(cli), user.id, { limit: 50 })).data.map((g) => g.id)).toEqual([
      global.id,
      local.id,
    ]);
  });

  it("keeps the two uniqueness rules of user_roles (409)", async () => {
    const user = await createUser(client);
    const [a, b] = [await createOrg(client), await createOrg(client)];
    await join(client, user.id, a.id);
    await join(client, user.id, b.id);
    const sys = await createRole(client, "system", ["svc:system:audit:read"]);
    const orgRole = await createRole(client, "org", ["svc:org:read"]);
    await grantRole(readContext(cli), user.id, { role_id: sys.id, org_id: null });
    expect((await refusal(grantRole(readContext(cli), user.id, { role_id: sys.id, org_id: null }))).code).toBe(
      "conflict",
    );
    await grantRole(readContext(cli), user.id, { role_id: orgRole.id, org_id: a.id });
    await grantRole(readContext(cli), user.id, { role_id: orgRole.id, org_id: b.id });
    expect((await refusal(grantRole(readContext(cli), user.id, { role_id: orgRole.id, org_id: a.id }))).code).toBe(
      "conflict",
    );
    expect(await client.userRole.count({ where: { user_id: user.id } })).toBe(3);
  });

  it("refuses unknown users, roles and organizations with 404", async () => {
    const user = await createUser(client);
    const missing = "0190a000-0000-7000-8000-000000000000";
    expect(
      (
        await refusal(
          grantRole(readContext(cli), missing, { role_id: await roleId(client, "sys_admin"), org_id: null }),
        )
      ).code,
    ).toBe("not_found");
    expect((await refusal(grantRole(readContext(cli), user.id, { role_id: missing, org_id: null }))).code).toBe(
      "not_found",
    );
    expect(
      (
        await refusal(
          grantRole(readContext(cli), user.id, { role_id: await roleId(client, "org_member"), org_id: missing }),
        )
      ).code,
    ).toBe("not_found");
    expect((await refusal(revokeGrant(readContext(cli), user.id, 2_000_000_000))).code).toBe("not_found");
  });
});

describe("no escalation", () => {
  it("refuses to grant a role with a permission the granter does not hold, changing nothing", async () => {
    const { actor } = await lesserAdmin(["svc:system:audit:read"]);
    const target = await createUser(client);
    const wide = await createRole(client, "system", ["svc:system:audit:read", "svc:system:settings:write"]);
    const error = await refusal(grantRole(readContext(await actor()), target.id, { role_id: wide.id, org_id: null }));
    expect(error.code).toBe("scope_not_held");
    expect(error.details.scopes).toEqual(["svc:system:settings:write"]);
    expect(await client.userRole.count({ where: { user_id: target.id } })).toBe(0);
    const narrow = await createRole(client, "system", ["svc:system:audit:read"]);
    expect((await grantRole(readContext(await actor()), target.id, { role_id: narrow.id, org_id: null })).role.id).toBe(
      narrow.id,
    );
  });

  it("refuses the sys_admin role to a non-sys_admin granter", async () => {
    const { actor } = await lesserAdmin(ALL_PERMISSIONS.filter((p) => p !== "svc:system:admin"));
    const target = await createUser(client);
    const error = await refusal(
      grantRole(readContext(await actor()), target.id, { role_id: await roleId(client, "sys_admin"), org_id: null }),
    );
    expect(error).toMatchObject({ code: "scope_not_held", details: { scopes: ["svc:system:admin"] } });
  });

  it("measures an org grant against what the granter holds in that organization", async () => {
    const { actor, org } = await lesserAdmin([], ["svc:org:read", "svc:org:members:write"]);
    const other = await createOrg(client);
    const target = await createUser(client);
    await join(client, target.id, org.id);
    await join(client, target.id, other.id);
    const reader = await createRole(client, "org", ["svc:org:read"]);
    expect((await grantOrgRole(readContext(await actor()), org.id, target.id, reader.id)).org_id).toBe(org.id);
    expect((await refusal(grantOrgRole(readContext(await actor()), other.id, target.id, reader.id))).code).toBe(
      "scope_not_held",
    );
    expect(
      (await refusal(grantOrgRole(readContext(await actor()), org.id, target.id, await roleId(client, "org_admin"))))
        .code,
    ).toBe("scope_not_held");
    const sys = await createRole(client, "system", []);
    expect((await refusal(grantOrgRole(readContext(await actor()), org.id, target.id, sys.id))).code).toBe(
      "validation_failed",
    );
  });

  it("lets a role editor add or remove only permissions it holds globally", async () => {
    const { actor } = await lesserAdmin(["svc:org:read"], ["svc:org:write"]);
    const role = await createRole(client, "org", ["svc:org:read", "svc:central_points:read"]);
    expect(
      (
        await refusal(
          updateRole(readContext(await actor()), role.id, {
            permissions: ["svc:org:read", "svc:central_points:read", "svc:org:write"],
          }),
        )
      ).code,
    ).toBe("scope_not_held");
    expect(
      (await refusal(updateRole(readContext(await actor()), role.id, { permissions: ["svc:org:read"] }))).code,
    ).toBe("scope_not_held");
    expect(
      (
        await refusal(
          createRoleAs(readContext(await actor()), { name: "mine", scope: "org", permissions: ["svc:org:write"] }),
        )
      ).code,
    ).toBe("scope_not_held");
    expect(
      (await updateRole(readContext(await actor()), role.id, { permissions: ["svc:central_points:read"] })).permissions,
    ).toEqual(["svc:central_points:read"]);
    expect((await refusal(deleteRole(readContext(await actor()), role.id))).code).toBe("scope_not_held");
  });

  it("lets a lesser admin neither revoke nor delete what it could not grant", async () => {
    const { actor } = await lesserAdmin(["svc:system:audit:read"]);
    // Two sys_admins, so that the last-sys_admin rule is not what refuses.
    const admin = await createSysAdmin(client);
    await createSysAdmin(client);
    const grantId = (await client.userRole.findFirstOrThrow({ where: { user_id: admin.id } })).id;
    expect((await refusal(revokeGrant(readContext(await actor()), admin.id, grantId))).code).toBe("scope_not_held");
    expect(await client.userRole.count({ where: { user_id: admin.id } })).toBe(1);
    const wide = await createRole(client, "system", ["svc:system:audit:read", "svc:system:settings:write"]);
    expect((await refusal(deleteRole(readContext(await actor()), wide.id))).code).toBe("scope_not_held");
    expect((await client.role.findUniqueOrThrow({ where: { id: wide.id } })).is_deleted).toBe(false);
  });

  // The property: whatever a non-sys_admin granter does with roles and grants, nobody
  // ends up holding a permission, globally or in an organization, that the granter did not hold
  // there before — the granter included — and nobody becomes a sys_admin. Invitations the granter
  // sends (and the invitee accepts) are one more way to hand out roles.
  it("holds for any sequence of grants, revokes, role edits and invitations by a non-sys_admin", async () => {
    const NON_ADMIN = ALL_PERMISSIONS.filter((p) => p !== "svc:system:admin");
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("create" as const),
        scope: fc.constantFrom<"system" | "org">("system", "org"),
        permissions: fc.subarray(ALL_PERMISSIONS, { maxLength: 5 }),
      }),
      fc.record({
        kind: fc.constant("update" as const),
        role: fc.nat(),
        permissions: fc.subarray(ALL_PERMISSIONS, { maxLength: 6 }),
      }),
      fc.record({ kind: fc.constant("grant" as const), target: fc.nat(2), role: fc.nat(), org: fc.nat(2) }),
      fc.record({ kind: fc.constant("revoke" as const), target: fc.nat(2), grant: fc.nat() }),
      fc.record({ kind: fc.constant("delete" as const), role: fc.nat() }),
      fc.record({ kind: fc.constant("invite" as const), role: fc.nat(), org: fc.nat(1) }),
    );
    const scenario = fc.record({
      granterGlobal: fc.subarray(NON_ADMIN, { maxLength: 8 }),
      granterOrg: fc.tuple(
        fc.subarray(ORG_PERMISSIONS, { maxLength: 8 }),
        fc.subarray(ORG_PERMISSIONS, { maxLength: 8 }),
      ),
      granterInSecondOrg: fc.boolean(),
      existing: fc.array(
        fc.record({
          scope: fc.constantFrom<"system" | "org">("system", "org"),
          permissions: fc.subarray(ALL_PERMISSIONS, { maxLength: 6 }),
        }),
        { maxLength: 3 },
      ),
      ops: fc.array(op, { minLength: 1, maxLength: 10 }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, async ({ granterGlobal, granterOrg, granterInSecondOrg, existing, ops }) => {
        const orgs = [await createOrg(client), await createOrg(client)];
        const granter = await createUser(client);
        const others = [await createUser(client), await createUser(client)];
        // Someone outside every organization, with a verified email: invitations bring them in.
        const outsider = await createUser(client);
        const outsiderEmail = `${outsider.username}@example.com`.toLowerCase();
        await client.user.update({
          where: { id: outsider.id },
          data: { email: outsiderEmail, email_verified_at: new Date() },
        });
        const people = [granter, ...others, outsider];
        await grant(
          client,
          granter.id,
          (await createRole(client, "system", [...new Set<Permission>(["svc:system:roles:write", ...granterGlobal])]))
            .id,
        );
        for (const [i, org] of orgs.entries()) {
          if (i === 1 && !granterInSecondOrg) continue;
          await join(client, granter.id, org.id);
          await grant(client, granter.id, (await createRole(client, "org", granterOrg[i] ?? [])).id, org.id);
        }
        for (const person of others) for (const org of orgs) await join(client, person.id, org.id);
        const roles: string[] = [
          await roleId(client, "sys_admin"),
          await roleId(client, "org_admin"),
          await roleId(client, "org_member"),
        ];
        for (const r of existing)
          roles.push(
            (
              await createRole(
                client,
                r.scope,
                r.scope === "org" ? r.permissions.filter((p) => ORG_PERMISSIONS.includes(p)) : r.permissions,
              )
            ).id,
          );

        const scopes: (string | undefined)[] = [undefined, orgs[0]?.id, orgs[1]?.id];
        const holdings = async (userId: string) => {
          const actor = await sessionActor(client, userId);
          return {
            sysAdmin: actor.grants.isSysAdmin,
            held: scopes.map((s) => new Set(ALL_PERMISSIONS.filter((p) => holds(actor, p, s)))),
          };
        };
        const granterBefore = await holdings(granter.id);
        const before = await Promise.all(people.map((p) => holdings(p.id)));

        for (const step of ops) {
          const actor = await sessionActor(client, granter.id);
          const pick = <T>(list: T[], n: number) => list[n % list.length] as T;
          try {
            switch (step.kind) {
              case "create": {
                const created = await createRoleAs(readContext(actor), {
                  name: `r-${Math.random().toString(36).slice(2)}`,
                  scope: step.scope,
                  permissions: step.permissions,
                });
                roles.push(created.id);
                break;
              }
              case "update":
                await updateRole(readContext(actor), pick(roles, step.role), { permissions: step.permissions });
                break;
              case "grant": {
                const orgId = step.org === 0 ? null : (orgs[step.org - 1]?.id ?? null);
                await grantRole(readContext(actor), pick(people, step.target).id, {
                  role_id: pick(roles, step.role),
                  org_id: orgId,
                });
                break;
              }
              case "revoke": {
                const target = pick(people, step.target);
                const grants = await client.userRole.findMany({
                  where: { user_id: target.id },
                  orderBy: { id: "asc" },
                });
                if (grants.length > 0) await revokeGrant(readContext(actor), target.id, pick(grants, step.grant).id);
                break;
              }
              case "delete":
                await deleteRole(readContext(actor), pick(roles, step.role));
                break;
              case "invite": {
                const invitation = await createInvitation(readContext(actor), pick(orgs, step.org).id, {
                  email: outsiderEmail,
                  role_ids: [pick(roles, step.role)],
                  expires_in_days: 7,
                });
                const token = invitation.accept_url.split("/").at(-1)!;
                await acceptInvitation(readContext(await sessionActor(client, outsider.id)), token);
                break;
              }
            }
          } catch (error) {
            // A refusal as the doors answer it; a grant the target already holds is the database's 409.
            if (!mapDatabaseError(error)) throw error;
          }
          for (const [i, person] of people.entries()) {
            const now = await holdings(person.id);
            expect(now.sysAdmin).toBe(before[i]?.sysAdmin);
            for (const [s, held] of now.held.entries()) {
              const gained = [...held].filter((p) => !before[i]?.held[s]?.has(p));
              const notTheGranters = gained.filter((p) => !granterBefore.held[s]?.has(p));
              expect(
                notTheGranters,
                `${person.username} in scope ${scopes[s] ?? "global"} after ${JSON.stringify(step)}`,
              ).toEqual([]);
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);
});

describe("the last sys_admin", () => {
  it("cannot lose the sys_admin grant; another one can", async () => {
    // The seed's root-admin and every sys_admin made above count: remove all but one first.
    const sysAdminRole = await roleId(client, "sys_admin");
    const holders = await client.userRole.findMany({
      where: { role_id: sysAdminRole, org_id: null },
      orderBy: { id: "asc" },
    });
    for (const h of holders.slice(1)) await revokeGrant(readContext(cli), h.user_id, h.id);
    const last = holders[0];
    if (!last) throw new Error("no sys_admin");
    const error = await refusal(revokeGrant(readContext(cli), last.user_id, last.id));
    expect(error.code).toBe("conflict");
    expect(error.message).toContain("without a sys_admin");
    expect(await client.userRole.count({ where: { role_id: sysAdminRole } })).toBe(1);

    const second = await createSysAdmin(client);
    await revokeGrant(readContext(cli), last.user_id, last.id);
    expect(await client.userRole.count({ where: { role_id: sysAdminRole, user_id: second.id } })).toBe(1);
    const secondGrant = await client.userRole.findFirstOrThrow({
      where: { role_id: sysAdminRole, user_id: second.id },
    });
    expect((await refusal(revokeGrant(readContext(cli), second.id, secondGrant.id))).code).toBe("conflict");
  });

  it("counts only a grant that survives two concurrent revocations once", async () => {
    const sysAdminRole = await roleId(client, "sys_admin");
    await createSysAdmin(client);
    const holders = await client.userRole.findMany({ where: { role_id: sysAdminRole, org_id: null } });
    expect(holders.length).toBe(2);
    const results = await Promise.allSettled(holders.map((h) => revokeGrant(readContext(cli), h.user_id, h.id)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await client.userRole.count({ where: { role_id: sysAdminRole } })).toBe(1);
  });
});

describe("announcements", () => {
  it("tells every process about changed grants and role permissions, on commit only", async () => {
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const heard: unknown[] = [];
    listener.on("notification", (m) => heard.push(JSON.parse(m.payload ?? "null")));
    await listener.query(`LISTEN ${CHANNEL}`);
    try {
      const user = await createUser(client);
      const role = await createRole(client, "system", ["svc:system:audit:read"]);
      await grantRole(readContext(cli), user.id, { role_id: role.id, org_id: null });
      await updateRole(readContext(cli), role.id, { permissions: [] });
      await refusal(grantRole(readContext(cli), user.id, { role_id: role.id, org_id: null }));
      // Notifications arrive in commit order: once a marker sent afterwards is heard, anything the
      // refused grant could have announced would have been heard before it.
      await client.$executeRaw`SELECT pg_notify(${CHANNEL}, '"marker"')`;
      await vi.waitFor(() => expect(heard).toContain("marker"), { timeout: 5_000, interval: 20 });
      expect(heard).toEqual([{ userId: user.id }, { all: true }, "marker"]);
    } finally {
      await listener.end();
    }
  });
});

describe("effective permissions", () => {
  it("lists what a user holds, globally and per organization, with the roles it comes from", async () => {
    const user = await createUser(client);
    const org = await createOrg(client);
    await join(client, user.id, org.id);
    const auditor = await createRole(client, "system", ["svc:system:audit:read", "svc:org:read"]);
    await grant(client, user.id, auditor.id);
    await grant(client, user.id, await roleId(client, "org_member"), org.id);
    const view = await effectivePermissionsOf(readContext(cli), user.id);
    expect(view.is_sys_admin).toBe(false);
    expect(view.global.map((p) => p.permission)).toEqual(["svc:system:audit:read", "svc:org:read"]);
    expect(view.global[0]?.sources).toEqual([{ role_id: auditor.id, role_name: auditor.name, org_id: null }]);
    const inOrg = view.organizations.find((o) => o.id === org.id);
    const orgRead = inOrg?.permissions.find((p) => p.permission === "svc:org:read");
    expect(orgRead?.sources.map((s) => s.role_name).sort()).toEqual([auditor.name, "org_member"].sort());
    expect(inOrg?.permissions.map((p) => p.permission)).toContain("svc:conversations:write");
    expect(inOrg?.permissions.map((p) => p.permission)).not.toContain("svc:org:write");
  });

  it("gives a sys_admin every permission, from the sys_admin role", async () => {
    const admin = await createSysAdmin(client);
    const view = await effectivePermissionsOf(readContext(cli), admin.id);
    expect(view.is_sys_admin).toBe(true);
    expect(view.global).toHaveLength(ALL_PERMISSIONS.length);
    expect(view.global.find((p) => p.permission === "svc:system:admin")).toMatchObject({
      dangerous: true,
      sources: [{ role_name: "sys_admin", org_id: null }],
    });
  });

  it("forgets a grant once the org role is revoked", async () => {
    const user = await createUser(client);
    const org = await createOrg(client);
    await join(client, user.id, org.id);
    const reader = await createRole(client, "org", ["svc:org:read"]);
    await grantRole(readContext(cli), user.id, { role_id: reader.id, org_id: org.id });
    await revokeOrgRole(readContext(cli), org.id, user.id, reader.id);
    const view = await effectivePermissionsOf(readContext(cli), user.id);
    expect(view.organizations.find((o) => o.id === org.id)?.permissions).toEqual([]);
  });
});
