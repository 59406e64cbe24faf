import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import pg from "pg";
import { Prisma } from "@/generated/prisma/client";
import type { ErrorCode } from "@/server/errors";
import { testDatabase } from "@/test/database";
import { dataLayer } from "./data-layer";
import { mapDatabaseError } from "./errors";
import { ensureMessagePartitions } from "./partitions";

// The data model's rules, proved against the real database: each rule is shown by writing rows that the
// database must accept or refuse, and refusals are checked through mapDatabaseError as the
// services will see them.

const { client, url } = await testDatabase();

// ---------------------------------------------------------------------------------------------
// Helpers

let seq = 0;
/** A value no other test uses. */
const unique = (prefix: string) => `${prefix}-${++seq}-${randomUUID().slice(0, 8)}`;

/** Waits until the database's clock reads later than `instant`, so what it stamps next is later. */
async function pastOnDatabaseClock(instant: Date | number): Promise<void> {
  const after = typeof instant === "number" ? instant : instant.getTime();
  await vi.waitFor(
    async () => {
      const [row] = await client.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
      expect(row!.now.getTime()).toBeGreaterThan(after);
    },
    { timeout: 2_000, interval: 1 },
  );
}

async function sql<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]> {
  return client.$queryRawUnsafe<T[]>(query, ...params);
}

async function countWhere(table: string, column: string, id: string): Promise<number> {
  const [row] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}" WHERE "${column}" = $1::uuid`, id);
  return row!.n;
}

/** The operation must fail, and mapDatabaseError must turn the failure into `code` (and name `constraint`). */
async function expectRefused(operation: PromiseLike<unknown>, code: ErrorCode, constraint?: string) {
  const outcome = await Promise.resolve(operation).then(
    () => ({ refused: false as const }),
    (error: unknown) => ({ refused: true as const, error }),
  );
  expect(outcome.refused, "the database accepted a row it must refuse").toBe(true);
  const mapped = outcome.refused ? mapDatabaseError(outcome.error) : undefined;
  expect(mapped?.code, String(outcome.refused ? outcome.error : "")).toBe(code);
  if (constraint !== undefined) expect(mapped?.details.constraint).toBe(constraint);
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix milliseconds in the first 48 bits of a UUIDv7. */
const uuidMillis = (id: string) => parseInt(id.replaceAll("-", "").slice(0, 12), 16);

const keyHash = () => createHash("sha256").update(unique("key")).digest("hex");

const makeOrg = (data: Partial<Prisma.OrganizationUncheckedCreateInput> = {}) =>
  client.organization.create({ data: { name: unique("org"), ...data } });

const makeUser = (data: Partial<Prisma.UserUncheckedCreateInput> = {}) =>
  client.user.create({ data: { username: unique("user"), ...data } });

const makeRole = () => client.role.create({ data: { name: unique("role"), scope: "org" } });

const makeInstance = (org_id: string) =>
  client.orchestratorInstance.create({
    data: { org_id, name: unique("instance"), framework_type: "langgraph", mode: "supervisor" },
  });

const makeCentralPoint = (org_id: string, orchestrator_id: string, name = unique("cp")) =>
  client.centralPoint.create({ data: { org_id, orchestrator_id, name } });

const makeUserRole = (user_id: string, role_id: string, org_id: string | null = null) =>
  client.userRole.create({ data: { user_id, role_id, org_id } });

const makeApiKey = (user_id: string, key_hash = keyHash()) =>
  client.apiKey.create({ data: { user_id, name: unique("key"), key_hash, key_prefix: "cdk_abcd1234" } });

type PluginShape = { source: "system"; org_id?: null } | { source: "org"; org_id: string };
const makePlugin = (shape: PluginShape, pid: string, version = "1.0.0", is_latest = false) =>
  client.plugin.create({ data: { ...shape, pid, version, is_latest, name: "A plugin" } });

const makeModel = (provider: string, model_id: string, data: Partial<Prisma.ProviderModelConfigCreateInput> = {}) =>
  client.providerModelConfig.create({ data: { provider, model_id, ...data } });

const makeConversation = (org_id: string, user_id: string, instance_id: string | null = null) =>
  client.conversation.create({ data: { org_id, user_id, instance_id, title: "A chat" } });

const makeMessage = (data: Partial<Prisma.MessageUncheckedCreateInput> = {}) =>
  client.message.create({
    data: {
      org_id: randomUUID(),
      conv_id: randomUUID(),
      turn_id: randomUUID(),
      user_id: randomUUID(),
      role: "user",
      content: "hello",
      ...data,
    },
  });

/** One organization, user and role with a row in every table that hangs off them. */
async function populate() {
  const org = await makeOrg();
  const user = await makeUser();
  const role = await makeRole();
  const instance = await makeInstance(org.id);
  await client.organizationSetting.create({ data: { org_id: org.id, key: "k", value: { on: true } } });
  await client.organizationLlmConfig.create({
    data: { org_id: org.id, name: "byok", provider: "openai", api_key: "encrypted" },
  });
  await makeCentralPoint(org.id, instance.id);
  await client.userOrgMembership.create({ data: { user_id: user.id, org_id: org.id } });
  await client.userOauthIdentity.create({
    data: { user_id: user.id, provider: "github", provider_user_id: unique("gh") },
  });
  await client.rolePermission.create({ data: { role_id: role.id, permission: "svc:org:read" } });
  await makeUserRole(user.id, role.id, org.id);
  await makeUserRole(user.id, role.id);
  await makeApiKey(user.id);
  await makePlugin({ source: "org", org_id: org.id }, unique("com.example.p"));
  await makeConversation(org.id, user.id, instance.id);
  return { org, user, role, instance };
}

/** [table, column] pairs that a populate() row of each kind points through. */
const ORG_OWNED = [
  ["organization_settings", "org_id"],
  ["organization_llm_configs", "org_id"],
  ["orchestrator_instances", "org_id"],
  ["central_points", "org_id"],
  ["user_org_memberships", "org_id"],
  ["user_roles", "org_id"],
  ["plugins", "org_id"],
  ["conversations", "org_id"],
] as const;
const USER_OWNED = [
  ["user_org_memberships", "user_id"],
  ["user_oauth_identities", "user_id"],
  ["user_roles", "user_id"],
  ["api_keys", "user_id"],
  ["conversations", "user_id"],
] as const;
const ROLE_OWNED = [
  ["role_permissions", "role_id"],
  ["user_roles", "role_id"],
] as const;

async function countsOf(pairs: readonly (readonly [string, string])[], id: string) {
  return Object.fromEntries(
    await Promise.all(pairs.map(async ([table, column]) => [table, await countWhere(table, column, id)] as const)),
  );
}

/** Rows in each of these tables refer to `id`: a cascade then seen to empty them proves something. */
async function expectRowsPresent(pairs: readonly (readonly [string, string])[], id: string) {
  const counts = await countsOf(pairs, id);
  expect(
    Object.values(counts).every((n) => n > 0),
    JSON.stringify(counts),
  ).toBe(true);
}

/** Information-schema facts about the public tables that are not partitions. */
async function columnsWhere(condition: string, ...params: unknown[]) {
  return sql<{ table_name: string; column_name: string; data_type: string; character_maximum_length: number | null }>(
    `SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.character_maximum_length::int
       FROM information_schema.columns c
       JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = 'public'::regnamespace
      WHERE c.table_schema = 'public' AND NOT k.relispartition AND c.table_name <> '_prisma_migrations'
        AND (${condition})
      ORDER BY c.table_name, c.column_name`,
    ...params,
  );
}
const tablesWithColumn = async (column: string) =>
  (await columnsWhere("c.column_name = $1", column)).map((c) => c.table_name).sort();

const CORE_TABLES = [
  "api_keys",
  "central_points",
  "conversations",
  "messages",
  "oauth2_clients",
  "orchestrator_instances",
  "organization_llm_configs",
  "organization_settings",
  "organizations",
  "platform_settings",
  "plugins",
  "provider_model_configs",
  "role_permissions",
  "roles",
  "user_oauth_identities",
  "user_org_memberships",
  "user_roles",
  "users",
];
/** Tables added to the core data model for the second factor of console sign-in. */
const TWO_FACTOR_TABLES = ["user_recovery_codes", "user_two_factor"];
/** Tables of people's email addresses: the pending link that verifies one. */
const EMAIL_TABLES = ["email_verifications"];
/** Tables of events out (webhooks): endpoints, messages, deliveries, and marks of system events sent. */
const WEBHOOK_TABLES = ["event_marks", "webhook_deliveries", "webhook_endpoints", "webhook_messages"];
/** Of those, the ones written by the app alone: no soft delete, no record of who changed them. */
const WEBHOOK_LOG_TABLES = ["event_marks", "webhook_deliveries", "webhook_messages"];
/** Domains organizations prove they hold (a DNS TXT record), for joining by verified email. */
const DOMAIN_TABLES = ["organization_domains"];
/** Invitations to join an organization, by email or link. */
const INVITATION_TABLES = ["invitations"];
/** Organizations' own identity providers, and the SAML message ids already used. */
const SSO_TABLES = ["sso_connections", "sso_message_ids"];
/** Directory provisioning (SCIM): tokens, the people and groups a directory provisioned, its latest requests. */
const SCIM_TABLES = ["scim_group_members", "scim_groups", "scim_requests", "scim_tokens", "scim_users"];
/** Of those, the ones a directory writes (no record of who changed them: the audit trail says) or the app logs. */
const SCIM_UNSTAMPED_TABLES = ["scim_group_members", "scim_groups", "scim_requests", "scim_users"];
const TABLES = [
  ...CORE_TABLES,
  ...TWO_FACTOR_TABLES,
  ...EMAIL_TABLES,
  ...WEBHOOK_TABLES,
  ...DOMAIN_TABLES,
  ...INVITATION_TABLES,
  ...SSO_TABLES,
  ...SCIM_TABLES,
].sort();
// Hourly counters keyed by key, hour and outcome: no id, no record stamps.
const KEY_USAGE_TABLES = ["api_key_usage", "api_key_usage_totals"];
const without = (...excluded: string[]) => TABLES.filter((t) => !excluded.includes(t));

/** messages_pYYYY_MM of the UTC month `monthsAhead` months from now. */
function monthPartition(monthsAhead: number, from = new Date()) {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + monthsAhead, 1));
  return `messages_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
}
const partitionOf = async (id: string) =>
  (await sql<{ part: string }>(`SELECT tableoid::regclass::text AS part FROM messages WHERE id = $1::uuid`, id)).map(
    (r) => r.part,
  );

// ---------------------------------------------------------------------------------------------

describe("unique rules", () => {
  it("platform_settings.key is unique", async () => {
    const key = unique("tier.pro");
    const setting = () => client.platformSetting.create({ data: { key, value: { a: 1 }, value_type: "json" } });
    await setting();
    await expectRefused(setting(), "conflict", "platform_settings_key_key");
  });

  it("organizations.domain is unique where not null: two NULL domains pass, two equal ones are refused", async () => {
    await makeOrg({ domain: null });
    await makeOrg({ domain: null });
    const domain = `${unique("d")}.example.com`;
    await makeOrg({ domain });
    await expectRefused(makeOrg({ domain }), "conflict", "organizations_domain_key");
  });

  it("organization_settings (org_id, key) is unique; the same key in another organization passes", async () => {
    const [a, b] = [await makeOrg(), await makeOrg()];
    const setting = (org_id: string) =>
      client.organizationSetting.create({ data: { org_id, key: "theme", value: "dark" } });
    await setting(a.id);
    await setting(b.id);
    await expectRefused(setting(a.id), "conflict", "organization_settings_org_id_key_key");
  });

  it("central_points (org_id, name) is unique among non-deleted rows; a soft-deleted one frees the name", async () => {
    const [a, b] = [await makeOrg(), await makeOrg()];
    const [ia, ib] = [await makeInstance(a.id), await makeInstance(b.id)];
    const first = await makeCentralPoint(a.id, ia.id, "support");
    await makeCentralPoint(b.id, ib.id, "support");
    await expectRefused(makeCentralPoint(a.id, ia.id, "support"), "conflict", "central_points_org_id_name_key");
    await client.centralPoint.update({ where: { id: first.id }, data: { is_deleted: true } });
    await makeCentralPoint(a.id, ia.id, "support");
  });

  it("users.username is unique among non-deleted rows; a soft-deleted user frees the name", async () => {
    const username = unique("alice");
    const first = await makeUser({ username });
    await expectRefused(makeUser({ username }), "conflict", "users_username_key");
    await client.user.update({ where: { id: first.id }, data: { is_deleted: true } });
    await makeUser({ username });
  });

  it("users.email is unique among non-deleted rows where not null", async () => {
    await makeUser({ email: null });
    await makeUser({ email: null });
    const email = `${unique("bob")}@example.com`;
    const first = await makeUser({ email });
    await expectRefused(makeUser({ email }), "conflict", "users_email_key");
    await client.user.update({ where: { id: first.id }, data: { is_deleted: true } });
    await makeUser({ email });
  });

  it("user_org_memberships (user_id, org_id) is unique", async () => {
    const [user, a, b] = [await makeUser(), await makeOrg(), await makeOrg()];
    const join = (org_id: string) => client.userOrgMembership.create({ data: { user_id: user.id, org_id } });
    await join(a.id);
    await join(b.id);
    await expectRefused(join(a.id), "conflict", "user_org_memberships_user_id_org_id_key");
  });

  it("user_oauth_identities (provider, provider_user_id) is unique; the same id at another provider passes", async () => {
    const [u1, u2] = [await makeUser(), await makeUser()];
    const provider_user_id = unique("ext");
    const link = (user_id: string, provider: string) =>
      client.userOauthIdentity.create({ data: { user_id, provider, provider_user_id } });
    await link(u1.id, "github");
    await link(u1.id, "google");
    await expectRefused(link(u2.id, "github"), "conflict", "user_oauth_identities_provider_provider_user_id_key");
  });

  it("roles.name is unique", async () => {
    const name = unique("auditor");
    await client.role.create({ data: { name, scope: "system" } });
    await expectRefused(client.role.create({ data: { name, scope: "org" } }), "conflict", "roles_name_key");
  });

  it("role_permissions (role_id, permission) is unique", async () => {
    const [r1, r2] = [await makeRole(), await makeRole()];
    const grant = (role_id: string) =>
      client.rolePermission.create({ data: { role_id, permission: "svc:users:read" } });
    await grant(r1.id);
    await grant(r2.id);
    await expectRefused(grant(r1.id), "conflict", "role_permissions_role_id_permission_key");
  });

  it("user_roles (user_id, role_id) is unique where org_id is null", async () => {
    const [user, role] = [await makeUser(), await makeRole()];
    await makeUserRole(user.id, role.id);
    await expectRefused(makeUserRole(user.id, role.id), "conflict", "user_roles_user_id_role_id_global_key");
  });

  it("user_roles (user_id, role_id, org_id) is unique where org_id is set; other orgs and the global grant pass", async () => {
    const [user, role, a, b] = [await makeUser(), await makeRole(), await makeOrg(), await makeOrg()];
    await makeUserRole(user.id, role.id, a.id);
    await makeUserRole(user.id, role.id, b.id);
    await makeUserRole(user.id, role.id);
    await expectRefused(makeUserRole(user.id, role.id, a.id), "conflict", "user_roles_user_id_role_id_org_id_key");
  });

  it("oauth2_clients.client_id is unique", async () => {
    const client_id = unique("app");
    const register = () => client.oauth2Client.create({ data: { client_id, name: "App", client_type: "public" } });
    await register();
    await expectRefused(register(), "conflict", "oauth2_clients_client_id_key");
  });

  it("api_keys.key_hash is unique, also across users", async () => {
    const [u1, u2] = [await makeUser(), await makeUser()];
    const hash = keyHash();
    await makeApiKey(u1.id, hash);
    await expectRefused(makeApiKey(u2.id, hash), "conflict", "api_keys_key_hash_key");
  });

  it("plugins (pid, version) is unique among system plugins", async () => {
    const pid = unique("com.example.sys");
    await makePlugin({ source: "system" }, pid, "1.0.0");
    await makePlugin({ source: "system" }, pid, "1.1.0");
    await expectRefused(makePlugin({ source: "system" }, pid, "1.0.0"), "conflict", "plugins_system_pid_version_key");
  });

  it("plugins (pid, version) is unique per organization; other organizations and the system may share it", async () => {
    const [a, b] = [await makeOrg(), await makeOrg()];
    const pid = unique("com.example.org");
    await makePlugin({ source: "org", org_id: a.id }, pid, "2.0.0");
    await makePlugin({ source: "org", org_id: b.id }, pid, "2.0.0");
    await makePlugin({ source: "system" }, pid, "2.0.0");
    await expectRefused(
      makePlugin({ source: "org", org_id: a.id }, pid, "2.0.0"),
      "conflict",
      "plugins_org_pid_version_key",
    );
  });

  it("plugins: only one system version of a pid is marked latest", async () => {
    const pid = unique("com.example.latest");
    await makePlugin({ source: "system" }, pid, "1.0.0", true);
    await makePlugin({ source: "system" }, pid, "1.1.0", false);
    await expectRefused(
      makePlugin({ source: "system" }, pid, "1.2.0", true),
      "conflict",
      "plugins_system_pid_latest_key",
    );
  });

  it("plugins: only one version of a pid is latest per organization; other organizations have their own", async () => {
    const [a, b] = [await makeOrg(), await makeOrg()];
    const pid = unique("com.example.latest");
    await makePlugin({ source: "org", org_id: a.id }, pid, "1.0.0", true);
    await makePlugin({ source: "org", org_id: b.id }, pid, "1.0.0", true);
    await makePlugin({ source: "system" }, pid, "1.0.0", true);
    await makePlugin({ source: "org", org_id: a.id }, pid, "0.9.0", false);
    await expectRefused(
      makePlugin({ source: "org", org_id: a.id }, pid, "1.1.0", true),
      "conflict",
      "plugins_org_pid_latest_key",
    );
  });

  it("provider_model_configs (provider, model_id) is unique among enabled rows only", async () => {
    const model_id = unique("gpt");
    await makeModel("openai", model_id);
    await makeModel("openai", model_id, { enabled: false });
    await makeModel("openai", model_id, { enabled: false });
    await makeModel("azure", model_id);
    await expectRefused(
      makeModel("openai", model_id),
      "conflict",
      "provider_model_configs_provider_model_id_enabled_key",
    );
  });

  it("a row pointing at a missing parent is refused as not_found", async () => {
    await expectRefused(
      client.organizationSetting.create({ data: { org_id: randomUUID(), key: "k", value: 1 } }),
      "not_found",
      "organization_settings_org_id_fkey",
    );
  });
});

describe("on-delete rules", () => {
  it("deleting an organization deletes its settings, LLM configs, instances, central points, memberships, org roles, plugins and conversations", async () => {
    const { org, user, role } = await populate();
    const bystander = await populate();
    await expectRowsPresent(ORG_OWNED, org.id);
    const bystanderBefore = await countsOf(ORG_OWNED, bystander.org.id);

    await client.organization.delete({ where: { id: org.id } });

    expect(await countsOf(ORG_OWNED, org.id)).toEqual(Object.fromEntries(ORG_OWNED.map(([t]) => [t, 0])));
    // Only what belonged to the organization went: the user, the role and the global grant stay.
    expect(await client.user.count({ where: { id: user.id } })).toBe(1);
    expect(await client.role.count({ where: { id: role.id } })).toBe(1);
    expect(await client.userRole.count({ where: { user_id: user.id, org_id: null } })).toBe(1);
    // Another organization's rows are untouched.
    expect(await countsOf(ORG_OWNED, bystander.org.id)).toEqual(bystanderBefore);
  });

  it("deleting a user deletes their memberships, OAuth identities, roles, API keys and conversations", async () => {
    const { org, user } = await populate();
    await expectRowsPresent(USER_OWNED, user.id);

    await client.user.delete({ where: { id: user.id } });

    expect(await countsOf(USER_OWNED, user.id)).toEqual(Object.fromEntries(USER_OWNED.map(([t]) => [t, 0])));
    expect(await client.organization.count({ where: { id: org.id } })).toBe(1);
    expect(await client.orchestratorInstance.count({ where: { org_id: org.id } })).toBe(1);
  });

  it("deleting a role deletes its permissions and grants", async () => {
    const { user, role } = await populate();
    await expectRowsPresent(ROLE_OWNED, role.id);

    await client.role.delete({ where: { id: role.id } });

    expect(await countsOf(ROLE_OWNED, role.id)).toEqual({ role_permissions: 0, user_roles: 0 });
    expect(await client.user.count({ where: { id: user.id } })).toBe(1);
  });

  it("deleting an orchestrator instance that a central point refers to is refused", async () => {
    const org = await makeOrg();
    const instance = await makeInstance(org.id);
    await makeCentralPoint(org.id, instance.id);
    await expectRefused(
      client.orchestratorInstance.delete({ where: { id: instance.id } }),
      "conflict",
      "central_points_orchestrator_id_fkey",
    );
    expect(await client.orchestratorInstance.count({ where: { id: instance.id } })).toBe(1);
  });

  it("deleting an orchestrator instance sets its conversations' instance_id to NULL", async () => {
    const [org, user] = [await makeOrg(), await makeUser()];
    const instance = await makeInstance(org.id);
    const conversation = await makeConversation(org.id, user.id, instance.id);

    await client.orchestratorInstance.delete({ where: { id: instance.id } });

    const after = await client.conversation.findUniqueOrThrow({ where: { id: conversation.id } });
    expect(after.instance_id).toBeNull();
  });

  it("messages and provider_model_configs have no foreign keys", async () => {
    const message = await makeMessage({ instance_id: randomUUID() });
    expect(await client.message.count({ where: { id: message.id } })).toBe(1);
    const foreignKeys = await sql<{ table: string; name: string }>(
      `SELECT conrelid::regclass::text AS table, conname::text AS name FROM pg_constraint
        WHERE contype = 'f'
          AND (conrelid IN ('messages'::regclass, 'provider_model_configs'::regclass)
               OR conrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'messages'::regclass))`,
    );
    expect(foreignKeys).toEqual([]);
    // The query does find foreign keys where there are some.
    const conversationKeys = await sql(
      `SELECT 1 FROM pg_constraint WHERE contype = 'f' AND conrelid = 'conversations'::regclass`,
    );
    expect(conversationKeys).toHaveLength(3);
  });
});

describe("plugins source/org_id CHECK", () => {
  it("refuses a system plugin with an organization", async () => {
    const org = await makeOrg();
    await expectRefused(
      client.plugin.create({ data: { source: "system", org_id: org.id, pid: unique("p"), version: "1", name: "x" } }),
      "validation_failed",
      "plugins_source_org_id_check",
    );
  });

  it("refuses an organization plugin without an organization", async () => {
    await expectRefused(
      client.plugin.create({ data: { source: "org", org_id: null, pid: unique("p"), version: "1", name: "x" } }),
      "validation_failed",
      "plugins_source_org_id_check",
    );
  });

  it("refuses any other source", async () => {
    await expectRefused(
      client.plugin.create({ data: { source: "team", org_id: null, pid: unique("p"), version: "1", name: "x" } }),
      "validation_failed",
      "plugins_source_org_id_check",
    );
  });

  it("accepts a system plugin without an organization and an organization plugin with one", async () => {
    const org = await makeOrg();
    const system = await makePlugin({ source: "system" }, unique("p"));
    const own = await makePlugin({ source: "org", org_id: org.id }, unique("p"));
    expect([system.org_id, own.org_id]).toEqual([null, org.id]);
  });
});

describe("primary keys", () => {
  it("entity rows created through Prisma get UUIDv7 ids from the database", async () => {
    const { org, user, role, instance } = await populate();
    const ids = [
      org.id,
      user.id,
      role.id,
      instance.id,
      (await client.organizationLlmConfig.findFirstOrThrow({ where: { org_id: org.id } })).id,
      (await client.centralPoint.findFirstOrThrow({ where: { org_id: org.id } })).id,
      (await client.userOauthIdentity.findFirstOrThrow({ where: { user_id: user.id } })).id,
      (await client.apiKey.findFirstOrThrow({ where: { user_id: user.id } })).id,
      (await client.plugin.findFirstOrThrow({ where: { org_id: org.id } })).id,
      (await client.conversation.findFirstOrThrow({ where: { org_id: org.id } })).id,
      (await client.oauth2Client.create({ data: { client_id: unique("c"), name: "c", client_type: "public" } })).id,
      (await makeMessage()).id,
    ];
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });

  it("entity rows inserted by raw SQL without an id get UUIDv7 ids", async () => {
    const rows = [
      ...(await sql<{ id: string }>(`INSERT INTO organizations (name) VALUES ('raw') RETURNING id::text`)),
      ...(await sql<{ id: string }>(`INSERT INTO users (username) VALUES ($1) RETURNING id::text`, unique("raw"))),
      ...(await sql<{ id: string }>(
        `INSERT INTO roles (name, scope) VALUES ($1, 'org') RETURNING id::text`,
        unique("r"),
      )),
      ...(await sql<{ id: string }>(
        `INSERT INTO messages (org_id, conv_id, turn_id, user_id, role, content)
         VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'user', 'x') RETURNING id::text`,
      )),
    ];
    expect(rows).toHaveLength(4);
    for (const { id } of rows) expect(id).toMatch(UUID_V7);
  });

  it("UUIDv7 ids carry the creation time and sort in creation order", async () => {
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await makeUser()).id);
      await pastOnDatabaseClock(uuidMillis(ids[ids.length - 1]!));
    }
    const finished = Date.now();
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) {
      expect(uuidMillis(id)).toBeGreaterThanOrEqual(started - 1000);
      expect(uuidMillis(id)).toBeLessThanOrEqual(finished + 1000);
    }
  });

  it("join, settings and model-catalog tables get integer ids counting up", async () => {
    const org = await makeOrg();
    const settings = [];
    for (let i = 0; i < 3; i++) {
      settings.push(
        await client.platformSetting.create({ data: { key: unique("s"), value: i, value_type: "integer" } }),
      );
    }
    const ids = settings.map((s) => s.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(ids).toEqual([ids[0], ids[0]! + 1, ids[0]! + 2]);
    const [m1, m2] = [await makeModel("x", unique("m")), await makeModel("x", unique("m"))];
    expect(m2.id).toBe(m1.id + 1);
    const o1 = await client.organizationSetting.create({ data: { org_id: org.id, key: "a", value: 1 } });
    const o2 = await client.organizationSetting.create({ data: { org_id: org.id, key: "b", value: 2 } });
    expect(o2.id).toBe(o1.id + 1);

    const idTypes = await columnsWhere("c.column_name = 'id'");
    const integerIds = idTypes.filter((c) => c.data_type === "integer").map((c) => c.table_name);
    const uuidIds = idTypes.filter((c) => c.data_type === "uuid").map((c) => c.table_name);
    const INTEGER_ID_TABLES = [
      "organization_settings",
      "platform_settings",
      "provider_model_configs",
      "role_permissions",
      "user_org_memberships",
      "user_roles",
    ];
    expect(integerIds).toEqual(INTEGER_ID_TABLES);
    // audit_events, added to the core data model, has a uuid id too.
    expect(uuidIds).toEqual(
      [
        ...without(
          ...INTEGER_ID_TABLES,
          "user_two_factor",
          "email_verifications",
          "event_marks",
          "sso_message_ids",
          "scim_group_members",
        ),
        "audit_events",
      ].sort(),
    );
  });
});

describe("defaults", () => {
  /** Inserts by raw SQL with only the given columns, so the database's own defaults are what shows. */
  async function insertRaw(table: string, values: Record<string, unknown>) {
    const columns = Object.keys(values);
    const placeholders = columns.map((_, i) => `$${i + 1}`);
    const [row] = await sql(
      `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${placeholders.join(", ")}) RETURNING *`,
      ...Object.values(values),
    );
    return row!;
  }

  /** A default must hold both for rows written by Prisma and for rows written by plain SQL. */
  function expectDefaults(rows: Record<string, unknown>[], expected: Record<string, unknown>) {
    for (const row of rows) {
      expect(row).toMatchObject(expected);
      for (const column of ["created_at", "updated_at"]) {
        if (!(column in row)) continue;
        expect(row[column]).toBeInstanceOf(Date);
        expect(Math.abs((row[column] as Date).getTime() - Date.now())).toBeLessThan(60_000);
      }
    }
  }

  it("organizations: status active, subscription_tier free, not deleted", async () => {
    expectDefaults([await makeOrg(), await insertRaw("organizations", { name: "raw" })], {
      status: "active",
      subscription_tier: "free",
      is_deleted: false,
      domain: null,
    });
  });

  it("orchestrator_instances: status active, tier demand, empty config", async () => {
    const org = await makeOrg();
    const raw = await insertRaw("orchestrator_instances", {
      org_id: org.id,
      name: "raw",
      framework_type: "langgraph",
      mode: "grounded",
    });
    expectDefaults([await makeInstance(org.id), raw], {
      status: "active",
      tier: "demand",
      config: {},
      plugin_settings: {},
      is_deleted: false,
    });
  });

  it("central_points: visibility private, status active", async () => {
    const org = await makeOrg();
    const instance = await makeInstance(org.id);
    const raw = await insertRaw("central_points", { org_id: org.id, orchestrator_id: instance.id, name: unique("cp") });
    expectDefaults([await makeCentralPoint(org.id, instance.id), raw], {
      visibility: "private",
      status: "active",
      is_deleted: false,
    });
  });

  it("plugins: stateless, enabled, not latest, empty JSON", async () => {
    const raw = await insertRaw("plugins", { source: "system", pid: unique("p"), version: "1", name: "x" });
    expectDefaults([await makePlugin({ source: "system" }, unique("p")), raw], {
      stateless: true,
      enabled: true,
      is_latest: false,
      is_specialized: false,
      is_scoped: false,
      capabilities: [],
      default_settings: {},
    });
  });

  it("provider_model_configs: text_generation, per_1m_tokens, USD, enabled", async () => {
    const raw = await insertRaw("provider_model_configs", { provider: "x", model_id: unique("m") });
    expectDefaults([await makeModel("x", unique("m")), raw], {
      model_category: "text_generation",
      input_billing_unit: "per_1m_tokens",
      output_billing_unit: "per_1m_tokens",
      currency: "USD",
      enabled: true,
      aliases: [],
    });
  });

  it("api_keys: active, not deleted, no expiry, empty scopes", async () => {
    const user = await makeUser();
    const raw = await insertRaw("api_keys", {
      user_id: user.id,
      name: "raw",
      key_hash: keyHash(),
      key_prefix: "cdk_x",
    });
    expectDefaults([await makeApiKey(user.id), raw], {
      is_active: true,
      is_deleted: false,
      expires_at: null,
      scopes: [],
    });
  });

  it("users, oauth2_clients, platform settings and messages", async () => {
    expectDefaults([await makeUser(), await insertRaw("users", { username: unique("u") })], { is_deleted: false });
    expectDefaults(
      [await insertRaw("oauth2_clients", { client_id: unique("c"), name: "c", client_type: "confidential" })],
      { is_active: true, is_first_party: false, redirect_uris: [], is_deleted: false },
    );
    expectDefaults([await insertRaw("platform_settings", { key: unique("k"), value: "1", value_type: "integer" })], {
      overridable: false,
      is_deleted: false,
    });
    const rawMessage = await insertRaw("messages", {
      org_id: randomUUID(),
      conv_id: randomUUID(),
      turn_id: randomUUID(),
      user_id: randomUUID(),
      role: "assistant",
      content: "raw",
    });
    expectDefaults([await makeMessage(), rawMessage], {
      source: "human",
      is_compacted: false,
      metadata: {},
      status: null,
      instance_id: null,
    });
  });
});

describe("decimal prices", () => {
  it.each(["0.00000001", "1234567890.12345678", "0.00000000", "15.00000000"])(
    "decimal(18,8) keeps %s exactly",
    async (price) => {
      const model = await makeModel("p", unique("m"), {
        input_price_per_unit: new Prisma.Decimal(price),
        output_price_per_unit: price,
      });
      const read = await client.providerModelConfig.findUniqueOrThrow({ where: { id: model.id } });
      expect(read.input_price_per_unit?.toFixed(8)).toBe(price);
      expect(read.output_price_per_unit?.toFixed(8)).toBe(price);
      expect(new Prisma.Decimal(price).equals(read.input_price_per_unit!)).toBe(true);
      const [raw] = await sql<{ text: string }>(
        `SELECT input_price_per_unit::text AS text FROM provider_model_configs WHERE id = $1`,
        model.id,
      );
      expect(raw!.text).toBe(price);
    },
  );

  it("decimal(18,8) refuses an eleventh integer digit", async () => {
    await expectRefused(makeModel("p", unique("m"), { input_price_per_unit: "12345678901" }), "validation_failed");
  });
});

describe("updated_at", () => {
  async function timestampsOf(table: string, id: string | number) {
    const [row] = await sql<{ created_at: Date; updated_at: Date }>(
      `SELECT created_at, updated_at FROM "${table}" WHERE id::text = $1`,
      String(id),
    );
    return row!;
  }

  async function expectRefreshedBy(table: string, id: string | number, update: () => PromiseLike<unknown>) {
    const before = await timestampsOf(table, id);
    await pastOnDatabaseClock(before.updated_at);
    await update();
    const after = await timestampsOf(table, id);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(after.created_at.getTime()).toBe(before.created_at.getTime());
  }

  it("an update through Prisma moves updated_at forward and leaves created_at alone", async () => {
    const org = await makeOrg();
    await expectRefreshedBy("organizations", org.id, () =>
      client.organization.update({ where: { id: org.id }, data: { name: "renamed" } }),
    );
  });

  it("an update by raw SQL moves updated_at forward and leaves created_at alone", async () => {
    const org = await makeOrg();
    await expectRefreshedBy("organizations", org.id, () =>
      client.$executeRawUnsafe(`UPDATE organizations SET name = 'raw rename' WHERE id = $1::uuid`, org.id),
    );
    const model = await makeModel("x", unique("m"));
    await expectRefreshedBy("provider_model_configs", model.id, () =>
      client.$executeRawUnsafe(`UPDATE provider_model_configs SET enabled = false WHERE id = $1`, model.id),
    );
    const [user, role] = [await makeUser(), await makeRole()];
    const grant = await makeUserRole(user.id, role.id);
    await expectRefreshedBy("user_roles", grant.id, () =>
      client.$executeRawUnsafe(`UPDATE user_roles SET created_by = 'x' WHERE id = $1`, grant.id),
    );
  });

  it("bookkeeping writes under svc.bookkeeping = 'on' leave updated_at alone, and only inside their transaction", async () => {
    const user = await makeUser();
    const key = await makeApiKey(user.id);
    const before = await timestampsOf("api_keys", key.id);
    await pastOnDatabaseClock(before.updated_at);
    await client.$transaction([
      client.$executeRawUnsafe(`SET LOCAL svc.bookkeeping = 'on'`),
      client.$executeRawUnsafe(`UPDATE api_keys SET last_used_at = now() WHERE id = $1::uuid`, key.id),
    ]);
    expect((await timestampsOf("api_keys", key.id)).updated_at).toEqual(before.updated_at);
    await expectRefreshedBy("api_keys", key.id, () =>
      client.$executeRawUnsafe(`UPDATE api_keys SET last_used_at = now() WHERE id = $1::uuid`, key.id),
    );
  });

  it("every table with updated_at has the refresh trigger", async () => {
    const withUpdatedAt = await tablesWithColumn("updated_at");
    const triggered = await sql<{ table: string }>(
      `SELECT DISTINCT t.tgrelid::regclass::text AS table FROM pg_trigger t
        JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE p.proname = 'svc_touch_updated_at' AND NOT t.tgisinternal ORDER BY 1`,
    );
    expect(withUpdatedAt).toEqual(
      without(
        "messages",
        "user_recovery_codes",
        "webhook_messages",
        "event_marks",
        "sso_message_ids",
        "scim_group_members",
        "scim_requests",
      ),
    );
    expect(triggered.map((t) => t.table)).toEqual(withUpdatedAt);
  });
});

describe("soft delete and audit columns through dataLayer", () => {
  async function softDeletedUser() {
    const user = await makeUser();
    await client.user.update({ where: { id: user.id }, data: { is_deleted: true } });
    return user;
  }

  it("a soft-deleted user is absent from findMany, findFirst, findUnique and count", async () => {
    const gone = await softDeletedUser();
    const kept = await makeUser();
    const db = dataLayer("user-1", { client });
    const ids = [gone.id, kept.id];
    expect((await db.user.findMany({ where: { id: { in: ids } } })).map((u) => u.id)).toEqual([kept.id]);
    expect(await db.user.findFirst({ where: { id: gone.id } })).toBeNull();
    expect(await db.user.findUnique({ where: { id: gone.id } })).toBeNull();
    expect(await db.user.findUnique({ where: { id: kept.id } })).not.toBeNull();
    expect(await db.user.count({ where: { id: { in: ids } } })).toBe(1);
  });

  it("a soft-deleted user cannot be updated (not_found)", async () => {
    const gone = await softDeletedUser();
    const db = dataLayer("user-1", { client });
    await expectRefused(db.user.update({ where: { id: gone.id }, data: { display_name: "ghost" } }), "not_found");
    expect((await client.user.findUniqueOrThrow({ where: { id: gone.id } })).display_name).toBeNull();
  });

  it("includeDeleted sees soft-deleted rows", async () => {
    const gone = await softDeletedUser();
    const db = dataLayer("user-1", { client, includeDeleted: true });
    expect((await db.user.findUnique({ where: { id: gone.id } }))?.id).toBe(gone.id);
    expect(await db.user.count({ where: { id: gone.id } })).toBe(1);
    await db.user.update({ where: { id: gone.id }, data: { display_name: "restored" } });
  });

  it("tables without is_deleted are read and updated as they are", async () => {
    const [user, org] = [await makeUser(), await makeOrg()];
    const membership = await client.userOrgMembership.create({ data: { user_id: user.id, org_id: org.id } });
    const db = dataLayer("user-1", { client });
    expect((await db.userOrgMembership.findMany({ where: { user_id: user.id } })).map((m) => m.id)).toEqual([
      membership.id,
    ]);
    expect(await db.userOrgMembership.count({ where: { user_id: user.id } })).toBe(1);
    const model = await makeModel("x", unique("m"));
    expect((await db.providerModelConfig.update({ where: { id: model.id }, data: { enabled: false } })).enabled).toBe(
      false,
    );
  });

  it("a create sets created_by and updated_by to the actor; an update changes only updated_by", async () => {
    const created = await dataLayer("actor-a", { client }).user.create({ data: { username: unique("audited") } });
    expect([created.created_by, created.updated_by]).toEqual(["actor-a", "actor-a"]);
    const updated = await dataLayer("actor-b", { client }).user.update({
      where: { id: created.id },
      data: { display_name: "B" },
    });
    expect([updated.created_by, updated.updated_by]).toEqual(["actor-a", "actor-b"]);
  });

  it("api_keys gets only updated_by; tables without audit columns get none", async () => {
    const user = await makeUser();
    const db = dataLayer("actor-a", { client });
    const key = await db.apiKey.create({
      data: { user_id: user.id, name: "k", key_hash: keyHash(), key_prefix: "cdk_abc" },
    });
    expect(key.updated_by).toBe("actor-a");
    expect("created_by" in key).toBe(false);
    const identity = await db.userOauthIdentity.create({
      data: { user_id: user.id, provider: "google", provider_user_id: unique("g") },
    });
    expect(identity).not.toHaveProperty("updated_by");
  });
});

describe("messages partitioning", () => {
  it("has monthly partitions for this month and three months ahead, plus a default one", async () => {
    const children = await sql<{ name: string }>(
      `SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'messages'::regclass ORDER BY 1`,
    );
    expect(children.map((c) => c.name)).toEqual(
      ["messages_default", ...[0, 1, 2, 3].map((m) => monthPartition(m))].sort(),
    );
  });

  it("a message written now lands in this month's partition", async () => {
    const message = await makeMessage();
    expect(await partitionOf(message.id)).toEqual([monthPartition(0)]);
  });

  it("a message five years ahead lands in the default partition, and moves when its month's partition is made", async () => {
    const future = new Date();
    future.setUTCFullYear(future.getUTCFullYear() + 5);
    const message = await makeMessage({ created_at: future, content: "from the future" });
    expect(await partitionOf(message.id)).toEqual(["messages_default"]);

    const pgClient = new pg.Client({ connectionString: url });
    await pgClient.connect();
    try {
      expect(await ensureMessagePartitions(pgClient, 70)).toBe(67);
    } finally {
      await pgClient.end();
    }

    expect(await partitionOf(message.id)).toEqual([monthPartition(0, future)]);
    const read = await client.message.findUniqueOrThrow({
      where: { id_created_at: { id: message.id, created_at: message.created_at } },
    });
    expect(read.content).toBe("from the future");
    const [{ n }] = (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM messages_default`)) as [{ n: number }];
    expect(n).toBe(0);
  });

  it("the primary key is (id, created_at)", async () => {
    const key = await sql<{ column: string }>(
      `SELECT column_name::text AS column FROM information_schema.key_column_usage
        WHERE table_schema = 'public' AND table_name = 'messages' AND constraint_name = 'messages_pkey'
        ORDER BY ordinal_position`,
    );
    expect(key.map((k) => k.column)).toEqual(["id", "created_at"]);
    const first = await makeMessage();
    await makeMessage({ id: first.id, created_at: new Date(first.created_at.getTime() - 1000) });
    await expectRefused(makeMessage({ id: first.id, created_at: first.created_at }), "conflict");
  });
});

describe("column facts", () => {
  it("there are exactly the 18 spec tables and audit_events, the two-factor, email, key usage, webhook, domain, invitation and SSO ones, besides Prisma's migrations table and the message partitions", async () => {
    const tables = await sql<{ name: string; partition: boolean }>(
      `SELECT c.relname::text AS name, c.relispartition AS partition FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY 1`,
    );
    expect(tables.filter((t) => !t.partition).map((t) => t.name)).toEqual([
      "_prisma_migrations",
      ...[...TABLES, ...KEY_USAGE_TABLES, "audit_events"].sort(),
    ]);
    expect(tables.filter((t) => t.partition).every((t) => /^messages_(default|p\d{4}_\d{2})$/.test(t.name))).toBe(true);
  });

  it.each([
    ["users", "locale", 35],
    ["users", "timezone", 64],
    ["organizations", "display_name", 500],
    ["organizations", "website", 512],
    ["organizations", "logo_url", 1000],
    ["organizations", "country", 100],
    ["organizations", "name", 255],
    ["organizations", "status", 50],
    ["api_keys", "key_prefix", 16],
    ["api_keys", "key_hash", 64],
    ["orchestrator_instances", "tier", 20],
    ["orchestrator_instances", "config_hash", 64],
    ["plugins", "source", 10],
    ["plugins", "tag", 100],
    ["plugins", "s3_path", 512],
    ["provider_model_configs", "currency", 3],
    ["provider_model_configs", "model_category", 32],
    ["provider_model_configs", "input_billing_unit", 64],
    ["conversations", "title", 500],
    ["messages", "role", 20],
    ["platform_settings", "value_type", 50],
  ] as const)("%s.%s is VARCHAR(%i)", async (table, column, length) => {
    const [col] = await columnsWhere("c.table_name = $1 AND c.column_name = $2", table, column);
    expect([col?.data_type, col?.character_maximum_length]).toEqual(["character varying", length]);
  });

  it("created_by and updated_by are VARCHAR(255) wherever they exist", async () => {
    const audit = await columnsWhere("c.column_name IN ('created_by', 'updated_by')");
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.filter((c) => c.data_type !== "character varying" || c.character_maximum_length !== 255)).toEqual([]);
  });

  it("every timestamp is timestamp with time zone", async () => {
    const timestamps = await columnsWhere("c.data_type LIKE 'timestamp%' OR c.column_name LIKE '%\\_at'");
    expect(timestamps.map((c) => `${c.table_name}.${c.column_name}`)).toContain("api_keys.expires_at");
    expect(timestamps.filter((c) => c.data_type !== "timestamp with time zone")).toEqual([]);
    expect(await tablesWithColumn("created_at")).toEqual(TABLES);
  });

  it("JSON columns are jsonb", async () => {
    const json = await columnsWhere("c.data_type IN ('json', 'jsonb')");
    expect(json.filter((c) => c.data_type !== "jsonb")).toEqual([]);
    expect(json.map((c) => `${c.table_name}.${c.column_name}`)).toEqual([
      "api_keys.meta",
      "api_keys.rate_limit",
      "api_keys.scopes",
      "audit_events.changes",
      "messages.metadata",
      "oauth2_clients.allowed_grant_types",
      "oauth2_clients.allowed_scopes",
      "oauth2_clients.redirect_uris",
      "orchestrator_instances.config",
      "orchestrator_instances.plugin_settings",
      "organization_llm_configs.additional_config",
      "organization_settings.value",
      "platform_settings.value",
      "plugins.capabilities",
      "plugins.default_settings",
      "plugins.settings_schema",
      "provider_model_configs.aliases",
      "webhook_messages.payload",
    ]);
  });

  it("is_deleted exists exactly on the soft-deletable tables", async () => {
    expect(await tablesWithColumn("is_deleted")).toEqual(
      without(
        "user_org_memberships",
        "user_oauth_identities",
        "role_permissions",
        "user_roles",
        "plugins",
        "provider_model_configs",
        "messages",
        ...TWO_FACTOR_TABLES,
        ...EMAIL_TABLES,
        ...WEBHOOK_LOG_TABLES,
        // Revoked, never deleted: an invitation's states say what became of it.
        ...INVITATION_TABLES,
        "sso_message_ids",
        // Revoked or deleted for good: the audit trail keeps what a directory did.
        ...SCIM_TABLES,
      ),
    );
  });

  it("created_by and updated_by exist exactly on the tables that record who changed them", async () => {
    const noAudit = [
      "user_oauth_identities",
      "role_permissions",
      "provider_model_configs",
      "messages",
      ...TWO_FACTOR_TABLES,
      ...EMAIL_TABLES,
      ...WEBHOOK_LOG_TABLES,
      "sso_message_ids",
      ...SCIM_UNSTAMPED_TABLES,
    ];
    expect(await tablesWithColumn("created_by")).toEqual(without(...noAudit, "api_keys"));
    expect(await tablesWithColumn("updated_by")).toEqual(without(...noAudit));
  });

  it("messages has no updated_at", async () => {
    expect(await columnsWhere("c.table_name = 'messages' AND c.column_name = 'updated_at'")).toEqual([]);
    expect(await columnsWhere("c.table_name = 'messages' AND c.column_name = 'created_at'")).toHaveLength(1);
  });
});
