import { describe, expect, it } from "vitest";
import { authenticateApiKey } from "@/server/auth/api-key-stage";
import { holds } from "@/server/auth/authorize";
import { createApiKey } from "@/server/services/api-keys/service";
import { cli, refusal } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createUser, grant, roleId, seedRoles } from "@/test/fixtures";
import { addMember, getMember, listMembers, listUserOrganizations, removeMember } from "./service";
import { readContext } from "@/server/db/context";

const { client } = await testDatabase();
await seedRoles(client);

describe("memberships", () => {
  it("adds a user once (409 the second time) and lists members both ways", async () => {
    const org = await createOrg(client);
    const [a, b] = [await createUser(client), await createUser(client)];
    expect(await addMember(readContext(cli), org.id, { user_id: a.id })).toMatchObject({
      org_id: org.id,
      user_id: a.id,
      username: a.username,
      roles: [],
    });
    await addMember(readContext(cli), org.id, { user_id: b.id });
    expect((await refusal(addMember(readContext(cli), org.id, { user_id: a.id }))).code).toBe("conflict");
    expect(await client.userOrgMembership.count({ where: { org_id: org.id } })).toBe(2);
    await grant(client, a.id, await roleId(client, "org_admin"), org.id);
    const members = await listMembers(readContext(cli), org.id, { limit: 50 });
    expect(members.data.map((m) => [m.user_id, m.roles.map((r) => r.name)])).toEqual([
      [b.id, []],
      [a.id, ["org_admin"]],
    ]);
    expect(
      (await listMembers(readContext(cli), org.id, { limit: 50, q: a.username })).data.map((m) => m.user_id),
    ).toEqual([a.id]);
    const second = await createOrg(client);
    await addMember(readContext(cli), second.id, { user_id: a.id });
    expect(
      (await listUserOrganizations(readContext(cli), a.id, { limit: 50 })).data.map((o) => [
        o.org_id,
        o.roles.map((r) => r.name),
      ]),
    ).toEqual([
      [second.id, []],
      [org.id, ["org_admin"]],
    ]);
    expect((await getMember(readContext(cli), org.id, a.id)).roles).toEqual([
      { id: await roleId(client, "org_admin"), name: "org_admin" },
    ]);
  });

  it("refuses unknown users and organizations with 404", async () => {
    const org = await createOrg(client);
    const missing = "0190a000-0000-7000-8000-000000000000";
    expect((await refusal(addMember(readContext(cli), org.id, { user_id: missing }))).code).toBe("not_found");
    expect((await refusal(addMember(readContext(cli), missing, { user_id: (await createUser(client)).id }))).code).toBe(
      "not_found",
    );
    expect((await refusal(removeMember(readContext(cli), org.id, missing))).code).toBe("not_found");
  });

  it("removes a member with their grants there, and their keys lose the organization at once", async () => {
    const org = await createOrg(client);
    const user = await createUser(client);
    await addMember(readContext(cli), org.id, { user_id: user.id });
    await grant(client, user.id, await roleId(client, "org_member"), org.id);
    const key = await createApiKey(readContext(cli), user.id, {
      name: "k",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    expect(holds(await authenticateApiKey(key.raw_key), "svc:org:read", org.id)).toBe(true);
    const removed = await removeMember(readContext(cli), org.id, user.id);
    expect(removed.roles.map((r) => r.name)).toEqual(["org_member"]);
    expect(await client.userRole.count({ where: { user_id: user.id, org_id: org.id } })).toBe(0);
    expect(holds(await authenticateApiKey(key.raw_key), "svc:org:read", org.id)).toBe(false);
    // Rejoining starts from nothing: the old grant does not come back.
    await addMember(readContext(cli), org.id, { user_id: user.id });
    expect(holds(await authenticateApiKey(key.raw_key), "svc:org:read", org.id)).toBe(false);
  });

  it("enforces the tier's max_members", async () => {
    const org = await createOrg(client);
    await client.platformSetting.update({
      where: { key: "tier.free" },
      data: { value: { max_orchestrators: 2, max_central_points: 0, max_members: 2 } },
    });
    try {
      const users = [await createUser(client), await createUser(client), await createUser(client)];
      const results = await Promise.allSettled(
        users.map((u) => addMember(readContext(cli), org.id, { user_id: u.id })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
      const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: "quota_exceeded" });
      expect(await client.userOrgMembership.count({ where: { org_id: org.id } })).toBe(2);
    } finally {
      await client.platformSetting.update({
        where: { key: "tier.free" },
        data: { value: { max_orchestrators: 2, max_central_points: 0, max_members: 5 } },
      });
    }
  });
});
