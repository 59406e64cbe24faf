import { BUILT_IN_ROLES, type Permission } from "@/lib/permissions";
import { hashPassword } from "@/server/auth/passwords";
import type { BaseClient } from "@/server/db/client";
import { seed } from "@/server/seed/seed";

// Test data written straight to the test file's database (the users and roles services come with
// their own issue). Built-in roles come from the real seed.

export const PASSWORD = "test-password-123";
let passwordHash: Promise<string> | undefined;

export async function seedRoles(client: BaseClient) {
  await seed(client, { username: "root-admin", password: PASSWORD });
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

export async function createUser(client: BaseClient, username = unique("user")) {
  passwordHash ??= hashPassword(PASSWORD);
  return client.user.create({ data: { username, password_hash: await passwordHash, display_name: username } });
}

export const createOrg = (client: BaseClient, name = unique("org")) => client.organization.create({ data: { name } });

export async function createRole(client: BaseClient, scope: "system" | "org", permissions: readonly Permission[]) {
  return client.role.create({
    data: { name: unique("role"), scope, permissions: { create: permissions.map((permission) => ({ permission })) } },
  });
}

export async function roleId(client: BaseClient, name: (typeof BUILT_IN_ROLES)[number]["name"]) {
  return (await client.role.findUniqueOrThrow({ where: { name } })).id;
}

export const grant = (client: BaseClient, userId: string, role_id: string, orgId: string | null = null) =>
  client.userRole.create({ data: { user_id: userId, role_id, org_id: orgId } });

export const join = (client: BaseClient, userId: string, orgId: string) =>
  client.userOrgMembership.create({ data: { user_id: userId, org_id: orgId } });

export async function createSysAdmin(client: BaseClient) {
  const user = await createUser(client, unique("admin"));
  await grant(client, user.id, await roleId(client, "sys_admin"));
  return user;
}

/** A user who is an org_member of a new organization. */
export async function createMember(client: BaseClient) {
  const org = await createOrg(client);
  return { user: await createOrgUser(client, org.id, "org_member"), org };
}

/** A user of the organization holding an org role there: a built-in one by name, or one createRole made. */
export async function createOrgUser(
  client: BaseClient,
  orgId: string,
  role: (typeof BUILT_IN_ROLES)[number]["name"] | { id: string },
) {
  const user = await createUser(client);
  await join(client, user.id, orgId);
  await grant(client, user.id, typeof role === "string" ? await roleId(client, role) : role.id, orgId);
  return user;
}

/** A user holding these system permissions through a custom system role of their own: no sys_admin. */
export async function createUserWith(client: BaseClient, permissions: readonly Permission[]) {
  const user = await createUser(client);
  await grant(client, user.id, (await createRole(client, "system", permissions)).id);
  return user;
}

/** A user who is the org_admin of this organization. */
export const createOrgAdmin = (client: BaseClient, orgId: string) => createOrgUser(client, orgId, "org_admin");

/** A search plugin to register, its settings checked by `settings_schema` (top_k defaults to 5). */
export const searchPlugin = <S extends object>(
  pid: string,
  version: string,
  settings_schema: S,
  extra: Record<string, unknown> = {},
) => ({
  pid,
  version,
  name: "Search",
  capabilities: ["retrieval"],
  settings_schema,
  default_settings: { top_k: 5 },
  ...extra,
});
