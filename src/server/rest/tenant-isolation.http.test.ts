import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { isDangerous, type Permission } from "@/lib/permissions";
import { createApiKey } from "@/server/services/api-keys/service";
import { createServiceAccount } from "@/server/services/service-accounts/service";
import { Browserless } from "@/test/app";
import { appOnOwnDatabase, consoleSession, keyOfEverything, orgKey } from "@/test/suite";
import { createOrg, createOrgAdmin, createSysAdmin, createUser, grant, join, PASSWORD, roleId } from "@/test/fixtures";
import { exampleBody } from "@/test/requests";
import { ROUTES, type RestOperation } from "./registry";
import { readContext } from "@/server/db/context";

// Generated from the route registry: every organization-scoped route, called by the admin of
// another organization, must not reveal the resource — 404 like a missing one, or 403 for the
// list routes of an organization the caller is not in — and no route reaches one organization's
// child through another's path, not even for a sys_admin. New routes are covered automatically.

process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const { client, app } = await appOnOwnDatabase();

const victim = await createOrg(client, "victim");
await client.organization.update({ where: { id: victim.id }, data: { subscription_tier: "pro" } });
const instance = await client.orchestratorInstance.create({
  data: { org_id: victim.id, name: "bot", framework_type: "langgraph", mode: "supervisor" },
});
const config = await client.organizationLlmConfig.create({
  data: { org_id: victim.id, name: "c", provider: "openai", api_key: "v1:x:y:z" },
});
const point = await client.centralPoint.create({
  data: { org_id: victim.id, orchestrator_id: instance.id, name: "cp" },
});
await client.organizationSetting.create({ data: { org_id: victim.id, key: "feature.x", value: true } });
const plugin = await client.plugin.create({
  data: {
    source: "org",
    org_id: victim.id,
    pid: "com.victim.secret",
    version: "1.0.0",
    name: "victim plugin",
    is_latest: true,
  },
});
const victimUser = await createUser(client);
await join(client, victimUser.id, victim.id);
const conversation = await client.conversation.create({
  data: { org_id: victim.id, user_id: victimUser.id, instance_id: instance.id, title: "victim chat" },
});

const home = await createOrg(client, "home");
const intruder = await createOrgAdmin(client, home.id);
const key = await orgKey(intruder.id, "intruder");
const intruderSession = new Browserless(app.baseUrl);
expect(await intruderSession.signIn(intruder.username, PASSWORD)).toBe(true);

const victimMember = await createUser(client);
await join(client, victimMember.id, victim.id);
const victimMemberRole = await roleId(client, "org_member");
await grant(client, victimMember.id, victimMemberRole, victim.id);

// A service account of the victim, with a key: its routes must hide it like any other child.
const victimRobot = await createServiceAccount(readContext(systemActor("test")), victim.id, {
  username: "victim-robot",
  display_name: null,
  role_ids: [victimMemberRole],
});
const victimRobotKey = await createApiKey(readContext(systemActor("test")), victimRobot.id, {
  name: "victim robot key",
  scopes: ["svc:org:read"],
  expires_at: null,
});
// A personal key of the victim's member: the personal key routes must not reach it for anyone else.
const victimPersonalKey = await createApiKey(readContext(systemActor("test")), victimMember.id, {
  name: "victim personal key",
  scopes: ["svc:org:read"],
  expires_at: null,
  allowed_cidrs: ["10.0.0.0/8"],
});
const victimEndpoint = await client.webhookEndpoint.create({
  data: { org_id: victim.id, url: "https://hooks.victim.example/x", event_types: ["*"], secret_encrypted: "x" },
});
const victimMessage = await client.webhookMessage.create({
  data: { id: randomUUID(), event_type: "webhook.test", org_id: victim.id, payload: { type: "webhook.test" } },
});
const victimDelivery = await client.webhookDelivery.create({
  data: { message_id: victimMessage.id, endpoint_id: victimEndpoint.id, status: "failed" },
});

const victimDomain = await client.organizationDomain.create({
  data: { org_id: victim.id, domain: "victim.example.net", token: "victim-domain-token" },
});
const victimInvitation = await client.invitation.create({
  data: {
    org_id: victim.id,
    email: "invitee@victim.example.net",
    role_ids: [victimMemberRole],
    token_hash: "0".repeat(64),
    expires_at: new Date(Date.now() + 86_400_000),
  },
});
const victimConnection = await client.ssoConnection.create({
  data: {
    org_id: victim.id,
    type: "saml",
    domains: ["victim.example.net"],
    default_role_id: victimMemberRole,
    oidc_scopes: [],
    saml_idp_entity_id: "https://idp.victim.example.net",
    // An address on this machine, where nothing answers: the app never sends anyone elsewhere.
    saml_idp_sso_url: "http://127.0.0.1:9/victim.example.net/sso",
    saml_idp_certificates: [],
  },
});
const victimScimToken = await client.scimToken.create({
  data: { org_id: victim.id, name: "victim directory", prefix: "scim_victim00", token_hash: "1".repeat(64) },
});
const victimScimGroup = await client.scimGroup.create({
  data: { org_id: victim.id, display_name: "victim.example.net staff", role_ids: [] },
});
const VICTIM_IDS: Record<string, string> = {
  credential_id: victimScimToken.id,
  group_id: victimScimGroup.id,
  domain_id: victimDomain.id,
  connection_id: victimConnection.id,
  invitation_id: victimInvitation.id,
  endpoint_id: victimEndpoint.id,
  delivery_id: victimDelivery.id,
  org_id: victim.id,
  orchestrator_id: instance.id,
  config_id: config.id,
  central_point_id: point.id,
  key: "feature.x",
  plugin_id: plugin.id,
  conversation_id: conversation.id,
  user_id: victimMember.id,
  role_id: victimMemberRole,
  key_id: victimRobotKey.id,
};
const fill = (path: string) => path.replace(/\{([a-z_]+)\}/g, (_, name: string) => VICTIM_IDS[name] ?? "missing");

const sysAdmin = await createSysAdmin(client);
const sysAdminKey = await keyOfEverything(sysAdmin.id);
const sysAdminSession = await consoleSession(app, sysAdmin.username);

interface Caller {
  name: string;
  sysAdmin: boolean;
  /** An API key, which never carries a dangerous permission. */
  key: boolean;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}
const withKey =
  (raw: string) =>
  (path: string, init: RequestInit = {}) =>
    app.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), "x-api-key": raw } });
const CALLERS: Caller[] = [
  { name: "org admin's key", sysAdmin: false, key: true, fetch: withKey(key.raw_key) },
  {
    name: "org admin's session",
    sysAdmin: false,
    key: false,
    fetch: (path, init) => intruderSession.fetch(path, init),
  },
  { name: "sys_admin's key", sysAdmin: true, key: true, fetch: withKey(sysAdminKey.raw_key) },
  { name: "sys_admin's session", sysAdmin: true, key: false, fetch: (path, init) => sysAdminSession.fetch(path, init) },
];

/** Whether the caller may not call the route at all: only sys_admins restore, and a key carries no dangerous permission. */
function refusedOutright(route: RestOperation, caller: Caller): boolean {
  const access = route.access as { permission: Permission; sysAdmin?: boolean };
  return (access.sysAdmin === true && !caller.sysAdmin) || (caller.key && isDangerous(access.permission));
}

/** A body the route accepts, whose fields that name what a path parameter names are the other organization's. */
const validBody = (route: RestOperation): string | undefined =>
  route.body ? JSON.stringify(exampleBody(route, VICTIM_IDS)) : undefined;

const orgScoped = ROUTES.filter((r) => r.path.includes("{org_id}"));

describe("tenant isolation", () => {
  it("covers every route under an organization", () => {
    expect(orgScoped.length).toBeGreaterThan(15);
    for (const route of orgScoped)
      expect(Object.keys(VICTIM_IDS), route.path).toEqual(
        expect.arrayContaining([...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1])),
      );
  });

  it.each(orgScoped.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s hides another organization",
    async (_name, route) => {
      const response = await app.fetch(fill(route.path), {
        method: route.method,
        headers: { "x-api-key": key.raw_key, "content-type": "application/json" },
        body: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
      });
      const expected = typeof route.access === "object" && route.access.org ? (route.access.list ? 403 : 404) : 403;
      expect(response.status).toBe(expected);
      const text = await response.text();
      for (const secret of [
        victim.name,
        instance.name,
        "feature.x",
        point.name,
        plugin.pid,
        "victim chat",
        "victim.example.net",
      ])
        expect(text).not.toContain(secret);
    },
  );

  // My own organization in the path, with another tenant's child in it: the child is not found
  // there, whatever the route, for the admin of my organization and for a sys_admin (who may act in
  // every organization, but still only on what is in the one the path names). Each call sends a body
  // the route accepts, so that it gets as far as looking the child up.
  const childRoutes = orgScoped.filter((r) => /\{org_id\}\/.*\{[a-z_]+\}/.test(r.path));
  const inHome = (path: string) => fill(path).replace(victim.id, home.id);
  // PUT creates or replaces the value the path names: in my organization, that is my own.
  const lookups = childRoutes.filter((r) => r.method !== "PUT");
  const upserts = childRoutes.filter((r) => r.method === "PUT");

  const callersCases = (routes: RestOperation[]) =>
    routes.flatMap((r) => CALLERS.map((caller) => [`${r.method} ${r.path} (${caller.name})`, r, caller] as const));

  it("tries every child route, each with a caller that gets as far as the lookup", () => {
    expect(lookups.length).toBeGreaterThan(10);
    for (const route of lookups)
      expect(
        CALLERS.map((caller) => refusedOutright(route, caller)),
        route.path,
      ).toContain(false);
  });

  it.each(callersCases(lookups))(
    "%s does not reach another organization's child through mine",
    async (_name, route, caller) => {
      const response = await caller.fetch(inHome(route.path), {
        method: route.method,
        headers: { "content-type": "application/json" },
        body: validBody(route),
      });
      expect(response.status).toBe(refusedOutright(route, caller) ? 403 : 404);
      const text = await response.text();
      for (const secret of [victim.name, instance.name, point.name, plugin.pid, "victim chat", "victim.example.net"])
        expect(text).not.toContain(secret);
    },
  );

  it.each(callersCases(upserts))(
    "%s writes my organization's own value, never the other's",
    async (_name, route, caller) => {
      const path = inHome(route.path);
      const response = await caller.fetch(path, {
        method: route.method,
        headers: { "content-type": "application/json" },
        body: validBody(route),
      });
      expect(response.status).toBe(refusedOutright(route, caller) ? 403 : 200);
      if (response.ok) expect(await response.json()).toEqual(await (await caller.fetch(path)).json());
    },
  );

  // Personal keys are nobody's but their owner's: every route that changes, rolls or revokes one
  // (from the registry), sent another user's key by each caller, is refused or finds nothing.
  const personalKeyWrites = ROUTES.filter(
    (r) => !r.path.includes("{org_id}") && /\{key_id\}(\/roll)?$/.test(r.path) && r.method !== "GET",
  );

  it("tries every personal key write: PATCH, roll and DELETE", () => {
    expect(personalKeyWrites.map((r) => r.method).sort()).toEqual(["DELETE", "PATCH", "POST"]);
  });

  it.each(callersCases(personalKeyWrites))("%s does not reach another user's key", async (_name, route, caller) => {
    const response = await caller.fetch(route.path.replace("{key_id}", victimPersonalKey.id), {
      method: route.method,
      headers: { "content-type": "application/json" },
      body: validBody(route),
    });
    expect(response.status).toBe(refusedOutright(route, caller) ? 403 : 404);
    expect(await response.text()).not.toContain("victim personal key");
  });

  it("left the other organization untouched", async () => {
    expect(await client.orchestratorInstance.findUniqueOrThrow({ where: { id: instance.id } })).toMatchObject({
      is_deleted: false,
      name: "bot",
    });
    expect(await client.centralPoint.findUniqueOrThrow({ where: { id: point.id } })).toMatchObject({
      is_deleted: false,
    });
    expect(await client.plugin.findUniqueOrThrow({ where: { id: plugin.id } })).toMatchObject({ enabled: true });
    expect(await client.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).toMatchObject({
      is_deleted: false,
    });
    expect(await client.organizationSetting.findMany({ where: { org_id: victim.id } })).toEqual([
      expect.objectContaining({ key: "feature.x", value: true, is_deleted: false }),
    ]);
    expect(await client.message.count({ where: { conv_id: conversation.id } })).toBe(0);
    expect(await client.organization.findUniqueOrThrow({ where: { id: victim.id } })).toMatchObject({
      is_deleted: false,
      name: "victim",
      subscription_tier: "pro",
    });
    expect(await client.userRole.count({ where: { user_id: victimMember.id, org_id: victim.id } })).toBe(1);
    expect(await client.userOrgMembership.count({ where: { user_id: victimMember.id, org_id: victim.id } })).toBe(1);
    expect(await client.user.findUniqueOrThrow({ where: { id: victimRobot.id } })).toMatchObject({ is_deleted: false });
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: victimRobotKey.id } })).toMatchObject({
      is_active: true,
      name: "victim robot key",
    });
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: victimPersonalKey.id } })).toMatchObject({
      is_active: true,
      name: "victim personal key",
      allowed_cidrs: ["10.0.0.0/8"],
      expires_at: null,
    });
    expect(await client.apiKey.count({ where: { user_id: victimMember.id } })).toBe(1);
  });

  it("does not list another organization", async () => {
    const response = await app.fetch("/api/v1/organizations", { headers: { "x-api-key": key.raw_key } });
    const { data } = (await response.json()) as { data: { id: string }[] };
    expect(data.map((o) => o.id)).toEqual([home.id]);
  });
});
