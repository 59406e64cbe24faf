import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { isDangerous, ORG_PERMISSIONS, type Permission } from "@/lib/permissions";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, startApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createUser, grant, join, PASSWORD, roleId, seedRoles } from "@/test/fixtures";
import { ROUTES } from "./registry";

// Generated from the route registry: every organization-scoped route, called by the admin of
// another organization, must not reveal the resource — 404 like a missing one, or 403 for the
// list routes of an organization the caller is not in. New routes are covered automatically.

const { client, url } = await testDatabase();
await seedRoles(client);
process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const app = await startApp(url);

const victim = await createOrg(client, "victim");
await client.organization.update({ where: { id: victim.id }, data: { subscription_tier: "pro" } });
const instance = await client.orchestratorInstance.create({ data: { org_id: victim.id, name: "bot", framework_type: "langgraph", mode: "supervisor" } });
const config = await client.organizationLlmConfig.create({ data: { org_id: victim.id, name: "c", provider: "openai", api_key: "v1:x:y:z" } });
const point = await client.centralPoint.create({ data: { org_id: victim.id, orchestrator_id: instance.id, name: "cp" } });
await client.organizationSetting.create({ data: { org_id: victim.id, key: "feature.x", value: true } });
const plugin = await client.plugin.create({ data: { source: "org", org_id: victim.id, pid: "com.victim.secret", version: "1.0.0", name: "victim plugin", is_latest: true } });
const victimUser = await createUser(client);
await join(client, victimUser.id, victim.id);
const conversation = await client.conversation.create({ data: { org_id: victim.id, user_id: victimUser.id, instance_id: instance.id, title: "victim chat" } });

const intruder = await createUser(client);
const home = await createOrg(client, "home");
await join(client, intruder.id, home.id);
await grant(client, intruder.id, await roleId(client, "org_admin"), home.id);
const key = await createApiKey(systemActor("test"), intruder.id, { name: "intruder", scopes: ORG_PERMISSIONS, expires_at: null });
const intruderSession = new Browserless(app.baseUrl);
expect(await intruderSession.signIn(intruder.username, PASSWORD)).toBe(true);

const victimMember = await createUser(client);
await join(client, victimMember.id, victim.id);
const victimMemberRole = await roleId(client, "org_member");
await grant(client, victimMember.id, victimMemberRole, victim.id);

const VICTIM_IDS: Record<string, string> = {
  org_id: victim.id,
  orchestrator_id: instance.id,
  config_id: config.id,
  central_point_id: point.id,
  key: "feature.x",
  plugin_id: plugin.id,
  conversation_id: conversation.id,
  user_id: victimMember.id,
  role_id: victimMemberRole,
};
const fill = (path: string) => path.replace(/\{([a-z_]+)\}/g, (_, name: string) => VICTIM_IDS[name] ?? "missing");

const orgScoped = ROUTES.filter((r) => r.path.includes("{org_id}"));

describe("tenant isolation", () => {
  it("covers every route under an organization", () => {
    expect(orgScoped.length).toBeGreaterThan(15);
    for (const route of orgScoped) expect(Object.keys(VICTIM_IDS), route.path).toEqual(expect.arrayContaining([...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1])));
  });

  it.each(orgScoped.map((r) => [`${r.method} ${r.path}`, r] as const))("%s hides another organization", async (_name, route) => {
    const response = await app.fetch(fill(route.path), {
      method: route.method,
      headers: { "x-api-key": key.raw_key, "content-type": "application/json" },
      body: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
    });
    const expected = typeof route.access === "object" && route.access.org ? (route.access.list ? 403 : 404) : 403;
    expect(response.status).toBe(expected);
    const text = await response.text();
    for (const secret of [victim.name, instance.name, "feature.x", point.name, plugin.pid, "victim chat"]) expect(text).not.toContain(secret);
  });

  // The intruder's own organization in the path, with another tenant's child in it: the child is
  // not found there, whatever the route.
  const childRoutes = orgScoped.filter((r) => /\{org_id\}\/.*\{[a-z_]+\}/.test(r.path));
  const inHome = (path: string) => fill(path).replace(victim.id, home.id);

  const childCases = childRoutes.flatMap((r) => (["key", "session"] as const).map((as) => [`${r.method} ${r.path} (${as})`, r, as] as const));

  it.each(childCases)("%s does not reach another organization's child through mine", async (_name, route, as) => {
    const bodyless = route.method === "GET" || route.method === "DELETE";
    const init = { method: route.method, headers: { "content-type": "application/json" }, body: bodyless ? undefined : "{}" };
    const response =
      as === "key" ? await app.fetch(inHome(route.path), { ...init, headers: { ...init.headers, "x-api-key": key.raw_key } }) : await intruderSession.fetch(inHome(route.path), init);
    // Only sys_admins restore, and a key never carries a dangerous permission: such calls are refused
    // outright. Otherwise a body route may refuse the empty body first; either way nothing is found.
    const access = route.access as { permission: Permission; sysAdmin?: boolean };
    const refused = access.sysAdmin || (as === "key" && isDangerous(access.permission));
    const expected = refused ? [403] : bodyless ? [404] : [400, 404];
    expect(expected).toContain(response.status);
    const text = await response.text();
    for (const secret of [victim.name, instance.name, point.name, plugin.pid, "victim chat"]) expect(text).not.toContain(secret);
  });

  it("left the other organization untouched", async () => {
    expect(await client.orchestratorInstance.findUniqueOrThrow({ where: { id: instance.id } })).toMatchObject({ is_deleted: false, name: "bot" });
    expect(await client.centralPoint.findUniqueOrThrow({ where: { id: point.id } })).toMatchObject({ is_deleted: false });
    expect(await client.plugin.findUniqueOrThrow({ where: { id: plugin.id } })).toMatchObject({ enabled: true });
    expect(await client.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).toMatchObject({ is_deleted: false });
    expect(await client.message.count({ where: { conv_id: conversation.id } })).toBe(0);
    expect(await client.organization.findUniqueOrThrow({ where: { id: victim.id } })).toMatchObject({ is_deleted: false, name: "victim", subscription_tier: "pro" });
    expect(await client.userRole.count({ where: { user_id: victimMember.id, org_id: victim.id } })).toBe(1);
    expect(await client.userOrgMembership.count({ where: { user_id: victimMember.id, org_id: victim.id } })).toBe(1);
  });

  it("does not list another organization", async () => {
    const response = await app.fetch("/api/v1/organizations", { headers: { "x-api-key": key.raw_key } });
    const { data } = (await response.json()) as { data: { id: string }[] };
    expect(data.map((o) => o.id)).toEqual([home.id]);
  });
});
