import { describe, expect, it } from "vitest";
import { dataLayer } from "@/server/db/data-layer";
import { listMembers } from "@/server/services/memberships/service";
import { effectivePermissionsOf } from "@/server/services/roles/grants";
import { readContext } from "@/server/db/context";
import { cli } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createUser, grant, join, roleId, seedRoles } from "@/test/fixtures";
import { loadGrants } from "./grants";

// What a directory does to a user's grants: a suspended membership holds nothing, its roles
// included; a directory group mapped to roles grants them in its organization while the user is
// in it and not suspended.

const { client } = await testDatabase();
await seedRoles(client);
const grantsOf = (userId: string) => loadGrants(dataLayer("system:test"), userId);

async function provisioned() {
  const org = await createOrg(client);
  const user = await createUser(client);
  await join(client, user.id, org.id);
  await grant(client, user.id, await roleId(client, "org_member"), org.id);
  const scimUser = await client.scimUser.create({
    data: { org_id: org.id, user_id: user.id, user_name: user.username },
  });
  return { org, user, scimUser };
}

describe("grants under directory sync", () => {
  it("leave out a suspended membership and every role held there, and keep the others", async () => {
    const { org, user } = await provisioned();
    const other = await createOrg(client);
    await join(client, user.id, other.id);
    await grant(client, user.id, await roleId(client, "org_member"), other.id);
    expect([...(await grantsOf(user.id)).memberships.keys()].sort()).toEqual([org.id, other.id].sort());

    await client.userOrgMembership.updateMany({
      where: { org_id: org.id, user_id: user.id },
      data: { suspended_at: new Date() },
    });
    const grants = await grantsOf(user.id);
    expect([...grants.memberships.keys()]).toEqual([other.id]);
    expect(grants.byOrg.has(org.id)).toBe(false);
    expect(grants.byOrg.get(other.id)?.has("svc:org:read")).toBe(true);
    const members = await listMembers(readContext(cli), org.id, { limit: 10 });
    expect(members.data.find((m) => m.user_id === user.id)?.suspended).toBe(true);
  });

  it("grant a mapped group's roles to its active members in its organization only", async () => {
    const { org, user, scimUser } = await provisioned();
    const orgAdmin = await roleId(client, "org_admin");
    const group = await client.scimGroup.create({ data: { org_id: org.id, display_name: "Admins", role_ids: [] } });
    await client.scimGroupMember.create({ data: { group_id: group.id, scim_user_id: scimUser.id } });
    expect((await grantsOf(user.id)).byOrg.get(org.id)?.has("svc:org:domains:write")).toBe(false);

    await client.scimGroup.update({ where: { id: group.id }, data: { role_ids: [orgAdmin] } });
    expect((await grantsOf(user.id)).byOrg.get(org.id)?.has("svc:org:domains:write")).toBe(true);
    // The user's effective permissions name the role the group grants as their source.
    const effective = await effectivePermissionsOf(readContext(cli), user.id);
    const here = effective.organizations.find((o) => o.id === org.id);
    expect(here?.permissions.find((p) => p.permission === "svc:org:domains:write")?.sources).toEqual([
      { role_id: orgAdmin, role_name: "org_admin", org_id: org.id },
    ]);

    await client.scimUser.update({ where: { id: scimUser.id }, data: { active: false } });
    expect((await grantsOf(user.id)).byOrg.get(org.id)?.has("svc:org:domains:write")).toBe(false);

    await client.scimUser.update({ where: { id: scimUser.id }, data: { active: true } });
    await client.scimGroupMember.deleteMany({ where: { group_id: group.id } });
    expect((await grantsOf(user.id)).byOrg.get(org.id)?.has("svc:org:domains:write")).toBe(false);
  });

  it("ignore a mapped role that is no org role, or is deleted", async () => {
    const { org, user, scimUser } = await provisioned();
    const sysAdmin = await roleId(client, "sys_admin");
    const group = await client.scimGroup.create({
      data: { org_id: org.id, display_name: "Sneaky", role_ids: [sysAdmin] },
    });
    await client.scimGroupMember.create({ data: { group_id: group.id, scim_user_id: scimUser.id } });
    const grants = await grantsOf(user.id);
    expect(grants.isSysAdmin).toBe(false);
    expect(grants.global.size).toBe(0);
    expect(grants.byOrg.get(org.id)?.has("svc:system:admin")).toBeFalsy();
  });
});
