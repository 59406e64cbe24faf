import { describe, expect, it } from "vitest";
import { MAX_ORGANIZATIONS_PER_USER } from "@/lib/schemas/organizations";
import { MAX_ROLES } from "@/lib/schemas/roles";
import { MAX_SETTINGS_PER_TIER } from "@/lib/schemas/settings";
import { cli, refusal } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createUser, seedRoles } from "@/test/fixtures";
import { addMember } from "./memberships/service";
import { createRole, restoreRole } from "./roles/service";
import { putOrgSetting, putPlatformSetting, restoreOrgSetting, restorePlatformSetting } from "./settings/service";
import { readContext } from "@/server/db/context";

// The platform's own limits, which keep the answers that list such things whole bounded as the API
// states (a user's organizations and permissions, the roles behind them, the effective settings):
// one past the limit is refused with 403 quota_exceeded, two additions racing for the last place
// included, a restore too, while replacing what is there still works.

const { client } = await testDatabase();
await seedRoles(client);

/** The outcomes of calls made at once: how many succeeded, and the codes of the refusals. */
async function race(calls: Promise<unknown>[]): Promise<{ succeeded: number; refused: string[] }> {
  const settled = await Promise.allSettled(calls);
  const refused = await Promise.all(
    settled.flatMap((s) => (s.status === "rejected" ? [refusal(Promise.reject(s.reason))] : [])),
  );
  return { succeeded: settled.filter((s) => s.status === "fulfilled").length, refused: refused.map((e) => e.code) };
}

describe("the platform's own limits", () => {
  it(`keep a user in at most ${MAX_ORGANIZATIONS_PER_USER} organizations`, async () => {
    const user = await createUser(client);
    const orgs = await client.organization.createManyAndReturn({
      data: Array.from({ length: MAX_ORGANIZATIONS_PER_USER + 1 }, (_, i) => ({ name: `limits-${i}` })),
      select: { id: true },
    });
    await client.userOrgMembership.createMany({
      data: orgs.slice(0, MAX_ORGANIZATIONS_PER_USER - 1).map((org) => ({ user_id: user.id, org_id: org.id })),
    });
    const [last, past] = orgs.slice(-2).map((org) => org.id) as [string, string];
    expect(
      await race([
        addMember(readContext(cli), last, { user_id: user.id }),
        addMember(readContext(cli), past, { user_id: user.id }),
      ]),
    ).toEqual({ succeeded: 1, refused: ["quota_exceeded"] });
    expect(await client.userOrgMembership.count({ where: { user_id: user.id } })).toBe(MAX_ORGANIZATIONS_PER_USER);
    // Another user still joins the organization that refused this one.
    expect(await addMember(readContext(cli), past, { user_id: (await createUser(client)).id })).toMatchObject({
      org_id: past,
    });
  });

  it(`keep at most ${MAX_ROLES} live roles, a restored one counting again`, async () => {
    const live = await client.role.count({ where: { is_deleted: false } });
    await client.role.createMany({
      data: Array.from({ length: MAX_ROLES - live - 1 }, (_, i) => ({ name: `filler-${i}`, scope: "org" })),
    });
    const deleted = await client.role.create({ data: { name: "deleted", scope: "org", is_deleted: true } });
    const role = (name: string) => createRole(readContext(cli), { name, scope: "org", permissions: [] });
    expect(await race([role("last"), role("past")])).toEqual({ succeeded: 1, refused: ["quota_exceeded"] });
    expect((await refusal(restoreRole(readContext(cli), deleted.id))).code).toBe("quota_exceeded");
    expect(await client.role.count({ where: { is_deleted: false } })).toBe(MAX_ROLES);
  });

  it(`keep at most ${MAX_SETTINGS_PER_TIER} settings in the platform's tier and in each organization's`, async () => {
    const platform = (key: string) =>
      putPlatformSetting(readContext(cli), key, { value: 1, value_type: "integer", overridable: true });
    const live = await client.platformSetting.count({ where: { is_deleted: false } });
    await client.platformSetting.createMany({
      data: Array.from({ length: MAX_SETTINGS_PER_TIER - live - 1 }, (_, i) => ({
        key: `filler.p${i}`,
        value: 0,
        value_type: "integer",
      })),
    });
    await client.platformSetting.create({
      data: { key: "deleted.p", value: 0, value_type: "integer", is_deleted: true },
    });
    expect(await race([platform("last.p"), platform("past.p")])).toEqual({ succeeded: 1, refused: ["quota_exceeded"] });
    // Replacing a setting adds none; bringing a deleted one back does.
    expect(await platform("filler.p0")).toMatchObject({ key: "filler.p0", value: 1 });
    expect((await refusal(restorePlatformSetting(readContext(cli), "deleted.p"))).code).toBe("quota_exceeded");
    expect(await client.platformSetting.count({ where: { is_deleted: false } })).toBe(MAX_SETTINGS_PER_TIER);

    const org = await createOrg(client);
    const other = await createOrg(client);
    const orgSetting = (orgId: string, key: string) =>
      putOrgSetting(readContext(cli), orgId, key, { value: 2, overridable: true });
    await client.organizationSetting.createMany({
      data: Array.from({ length: MAX_SETTINGS_PER_TIER - 1 }, (_, i) => ({ org_id: org.id, key: `o${i}`, value: 0 })),
    });
    await client.organizationSetting.create({ data: { org_id: org.id, key: "deleted.o", value: 0, is_deleted: true } });
    expect(await race([orgSetting(org.id, "last.o"), orgSetting(org.id, "past.o")])).toEqual({
      succeeded: 1,
      refused: ["quota_exceeded"],
    });
    expect(await orgSetting(org.id, "o0")).toMatchObject({ key: "o0", value: 2 });
    expect((await refusal(restoreOrgSetting(readContext(cli), org.id, "deleted.o"))).code).toBe("quota_exceeded");
    expect(await client.organizationSetting.count({ where: { org_id: org.id, is_deleted: false } })).toBe(
      MAX_SETTINGS_PER_TIER,
    );
    // Each organization has its own room.
    expect(await orgSetting(other.id, "past.o")).toMatchObject({ key: "past.o" });
  });
});
