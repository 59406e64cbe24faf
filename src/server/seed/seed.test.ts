import { describe, expect, it } from "vitest";
import { ALL_PERMISSIONS, BUILT_IN_ROLES } from "@/lib/permissions";
import { verifyPassword } from "@/server/auth/passwords";
import { testDatabase } from "@/test/database";
import { MODEL_CATALOG } from "./model-catalog";
import { seed, TIER_SETTINGS } from "./seed";

const { client } = await testDatabase();

async function snapshot() {
  return {
    roles: await client.role.findMany({
      orderBy: { name: "asc" },
      include: { permissions: { orderBy: { permission: "asc" } } },
    }),
    settings: await client.platformSetting.findMany({ orderBy: { key: "asc" } }),
    models: await client.providerModelConfig.findMany({ orderBy: { id: "asc" } }),
    users: await client.user.findMany({ orderBy: { username: "asc" } }),
    grants: await client.userRole.findMany({ orderBy: { id: "asc" } }),
  };
}

describe("seed", () => {
  let adminPassword: string | undefined;

  it("creates the built-in roles with the catalog's permissions", async () => {
    const result = await seed(client, { username: "root" });
    adminPassword = result.createdAdmin?.password;
    for (const role of BUILT_IN_ROLES) {
      const row = await client.role.findUniqueOrThrow({ where: { name: role.name }, include: { permissions: true } });
      expect(row.is_built_in).toBe(true);
      expect(row.scope).toBe(role.scope);
      expect(row.permissions.map((p) => p.permission).sort()).toEqual([...role.permissions].sort());
    }
    const sysAdmin = BUILT_IN_ROLES.find((r) => r.name === "sys_admin");
    expect(sysAdmin?.permissions).toEqual(ALL_PERMISSIONS);
  });

  it("creates the tier settings and the model catalog", async () => {
    const tiers = await client.platformSetting.findMany({ where: { category: "tier" }, orderBy: { key: "asc" } });
    expect(tiers.map((t) => [t.key, t.value])).toEqual(
      Object.entries(TIER_SETTINGS).sort(([a], [b]) => a.localeCompare(b)),
    );
    const models = await client.providerModelConfig.findMany();
    expect(models).toHaveLength(MODEL_CATALOG.length);
    expect(new Set(models.map((m) => m.provider))).toEqual(new Set(["openai", "anthropic", "google"]));
  });

  it("creates the first sys_admin with a generated password that verifies, returned once", async () => {
    expect(adminPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const admin = await client.user.findFirstOrThrow({
      where: { username: "root" },
      include: { user_roles: { include: { role: true } } },
    });
    expect(admin.password_hash).toMatch(/^\$argon2id\$/);
    expect(admin.password_hash).not.toContain(adminPassword);
    expect(await verifyPassword(admin.password_hash ?? "", adminPassword ?? "")).toBe(true);
    expect(await verifyPassword(admin.password_hash ?? "", "wrong password")).toBe(false);
    expect(admin.user_roles.map((g) => [g.role.name, g.org_id])).toEqual([["sys_admin", null]]);
  });

  it("changes nothing when run again, concurrently", async () => {
    const before = await snapshot();
    const results = await Promise.all([seed(client, { username: "other" }), seed(client, { username: "other" })]);
    expect(results.map((r) => r.createdAdmin)).toEqual([undefined, undefined]);
    expect(await snapshot()).toEqual(before);
  });

  it("keeps what an operator edited", async () => {
    await client.platformSetting.update({ where: { key: "tier.free" }, data: { value: { max_orchestrators: 7 } } });
    const model = await client.providerModelConfig.findFirstOrThrow();
    await client.providerModelConfig.update({ where: { id: model.id }, data: { input_price_per_unit: "9.87654321" } });
    await seed(client, { username: "root" });
    expect((await client.platformSetting.findUniqueOrThrow({ where: { key: "tier.free" } })).value).toEqual({
      max_orchestrators: 7,
    });
    const after = await client.providerModelConfig.findUniqueOrThrow({ where: { id: model.id } });
    expect(after.input_price_per_unit?.toFixed(8)).toBe("9.87654321");
  });

  it("restores a built-in role's permissions to the catalog", async () => {
    const role = await client.role.findUniqueOrThrow({ where: { name: "org_member" } });
    await client.rolePermission.deleteMany({ where: { role_id: role.id, permission: "svc:org:read" } });
    await client.rolePermission.create({ data: { role_id: role.id, permission: "svc:org:write" } });
    await seed(client, { username: "root" });
    const perms = await client.rolePermission.findMany({ where: { role_id: role.id } });
    expect(perms.map((p) => p.permission).sort()).toEqual(
      [...(BUILT_IN_ROLES.find((r) => r.name === "org_member")?.permissions ?? [])].sort(),
    );
  });
});
