import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ALL_PERMISSIONS, type Permission } from "@/lib/permissions";
import { removeMember } from "@/server/services/memberships/service";
import { grantRole, revokeGrant } from "@/server/services/roles/grants";
import { updateRole } from "@/server/services/roles/service";
import { sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createRole, createSysAdmin, createUser, grant, join, roleId, seedRoles } from "@/test/fixtures";
import { deleteUser, resetPassword, restoreUser, unlinkIdentity, updateUser } from "./service";
import { readContext } from "@/server/db/context";

// Whatever a non-sys_admin does with user management (passwords, usernames, emails, identities,
// deleting and restoring users, memberships) and with roles and grants, it never ends up able to
// act as a sys_admin: it does not become one, and no sys_admin's way of signing in is changed.

const { client } = await testDatabase();
await seedRoles(client);

let n = 0;
const fresh = (prefix: string) => `${prefix}${process.pid}x${++n}`;

describe("no takeover through user management", () => {
  it("holds for any sequence of user-management calls by a non-sys_admin", async () => {
    const NON_ADMIN = ALL_PERMISSIONS.filter((p) => p !== "svc:system:admin");
    const target = fc.nat(3);
    const op = fc.oneof(
      fc.record({ kind: fc.constant("password" as const), target }),
      fc.record({ kind: fc.constant("email" as const), target }),
      fc.record({ kind: fc.constant("username" as const), target }),
      fc.record({ kind: fc.constant("unlink" as const), target }),
      fc.record({ kind: fc.constant("delete" as const), target }),
      fc.record({ kind: fc.constant("restore" as const), target }),
      fc.record({ kind: fc.constant("grantSysAdmin" as const), target }),
      fc.record({ kind: fc.constant("revoke" as const), target }),
      fc.record({ kind: fc.constant("removeMember" as const), target }),
      fc.record({
        kind: fc.constant("editOwnRole" as const),
        permissions: fc.subarray(ALL_PERMISSIONS, { maxLength: 4 }),
      }),
    );
    const scenario = fc.record({
      actorGlobal: fc.subarray(NON_ADMIN, { maxLength: 10 }),
      ops: fc.array(op, { minLength: 1, maxLength: 8 }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, async ({ actorGlobal, ops }) => {
        const org = await createOrg(client);
        const actorUser = await createUser(client);
        const actorRole = await createRole(client, "system", [
          ...new Set<Permission>(["svc:system:users:write", ...actorGlobal]),
        ]);
        await grant(client, actorUser.id, actorRole.id);
        const admin = await createSysAdmin(client);
        const plain = await createUser(client);
        const orgAdmin = await createUser(client);
        for (const user of [actorUser, admin, plain, orgAdmin]) await join(client, user.id, org.id);
        await grant(client, orgAdmin.id, await roleId(client, "org_admin"), org.id);
        await grant(client, admin.id, await roleId(client, "org_admin"), org.id);
        await client.userOauthIdentity.create({
          data: { user_id: admin.id, provider: "github", provider_user_id: fresh("gh") },
        });
        const people = [admin, plain, orgAdmin, actorUser];
        const sysAdminRole = await roleId(client, "sys_admin");
        // Everything that signs a user in, or makes one a sys_admin.
        const signInOf = (userId: string) =>
          client.user.findUniqueOrThrow({
            where: { id: userId },
            select: {
              username: true,
              email: true,
              password_hash: true,
              is_deleted: true,
              oauth_identities: true,
              user_roles: { where: { role_id: sysAdminRole, org_id: null } },
            },
          });
        const adminBefore = await signInOf(admin.id);

        for (const step of ops) {
          const actor = await sessionActor(client, actorUser.id);
          const who = "target" in step ? (people[step.target % people.length] as (typeof people)[number]) : actorUser;
          const attempt = async () => {
            switch (step.kind) {
              case "password":
                return resetPassword(readContext(actor), who.id, { password: "attacker password 1" });
              case "email":
                return updateUser(readContext(actor), who.id, { email: `${fresh("x")}@attacker.test` });
              case "username":
                return updateUser(readContext(actor), who.id, { username: fresh("taken") });
              case "unlink": {
                const identity = await client.userOauthIdentity.findFirst({ where: { user_id: who.id } });
                return identity && unlinkIdentity(readContext(actor), who.id, identity.id);
              }
              case "delete":
                return deleteUser(readContext(actor), who.id);
              case "restore":
                return restoreUser(readContext(actor), who.id);
              case "grantSysAdmin":
                return grantRole(readContext(actor), who.id, { role_id: sysAdminRole, org_id: null });
              case "revoke": {
                const held = await client.userRole.findFirst({ where: { user_id: who.id } });
                return held && revokeGrant(readContext(actor), who.id, held.id);
              }
              case "removeMember":
                return removeMember(readContext(actor), org.id, who.id);
              case "editOwnRole":
                return updateRole(readContext(actor), actorRole.id, { permissions: step.permissions });
            }
          };
          // Refusals are the expected outcome of most steps; what matters is the state afterwards.
          await attempt().catch(() => undefined);
        }

        const actorAfter = await sessionActor(client, actorUser.id);
        expect(actorAfter.grants.isSysAdmin).toBe(false);
        expect(actorAfter.grants.global.has("svc:system:admin")).toBe(false);
        expect(await signInOf(admin.id)).toEqual(adminBefore);
      }),
      { numRuns: 40 },
    );
  });
});
