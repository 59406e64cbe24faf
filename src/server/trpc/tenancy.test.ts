import { describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { PERMISSIONS, type Permission } from "@/lib/permissions";
import { appendMessages, createConversation } from "@/server/services/conversations/service";
import { createOrg, createOrgAdmin, createUser, join } from "@/test/fixtures";
import { callerAs, consoleOperations, consoleTestbed, domainOf, failure, pathsOf, procedureAt } from "@/test/trpc";
import { handleTRPCRequest } from "./http";
import { createCaller } from "./root";
import { readContext } from "@/server/db/context";

// The console's tenancy procedures (organizations, settings tiers, LLM configs, orchestrators,
// central points, the conversation viewer) against this file's own PostgreSQL database: called
// in-process with real session actors, and once over the HTTP endpoint for the error shape.

vi.mock("@/server/session", () => ({
  currentSessionActor: vi.fn(async () => {
    throw new Error("the session must not be read");
  }),
}));

process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 9).toString("base64")}`;

const { client, adminActor, asAdmin } = await consoleTestbed();

// The org_admin of organization A; organization B is another tenant's.
const orgA = await createOrg(client);
const orgB = await createOrg(client);
const orgAdmin = await createOrgAdmin(client, orgA.id);
const asOrgAdmin = await callerAs(orgAdmin.id);

const orgProcedures = consoleOperations.flatMap(({ path, operation }) =>
  typeof operation.access === "object" && operation.access.org ? [{ path, access: operation.access }] : [],
);

let counter = 0;
const unique = (label: string) => `${label} ${++counter}`;
const newOrg = (extra: Record<string, unknown> = {}) => asAdmin.organizations.create({ name: unique("Org"), ...extra });
const instance = (orgId: string, extra: Record<string, unknown> = {}) =>
  asAdmin.orchestrators.create({
    org_id: orgId,
    name: unique("bot"),
    framework_type: "langgraph",
    mode: "supervisor",
    ...extra,
  });

describe("organization-scoped authorization", () => {
  it("covers every procedure of the tenancy routers that takes an org_id", () => {
    const paths = orgProcedures.map(({ path }) => path);
    for (const router of ["orgSettings", "llmConfigs", "orchestrators", "centralPoints", "conversations"]) {
      const all = consoleOperations.filter(({ path }) => path.startsWith(`${router}.`)).map(({ path }) => path);
      expect(all.length).toBeGreaterThan(0);
      expect(paths).toEqual(expect.arrayContaining(all));
    }
    expect(paths).toEqual(expect.arrayContaining(["organizations.get", "organizations.update"]));
    for (const { path, access } of orgProcedures) {
      expect(PERMISSIONS[access.permission as Permission].scope, `${path} declares an org permission`).toBe("org");
    }
  });

  // Generated from the router, like the REST tenant isolation test: the middleware decides before
  // the procedure's own input is parsed, so `{ org_id }` alone reaches the check.
  it.each(orgProcedures.map(({ path, access }) => [path, access.list ? "list" : "one"] as const))(
    "%s: another organization's admin gets NOT_FOUND, or FORBIDDEN for a list (%s)",
    async (path, kind) => {
      const error = await failure(procedureAt(asOrgAdmin, path)({ org_id: orgB.id }));
      if (kind === "list") {
        expect(error.code).toBe("FORBIDDEN");
        expect(domainOf(error).code).toBe("forbidden");
      } else {
        expect(error.code).toBe("NOT_FOUND");
        expect(domainOf(error).code).toBe("not_found");
      }
    },
  );

  it("answers an unknown organization exactly like another tenant's", async () => {
    const missing = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b";
    const other = await failure(asOrgAdmin.orchestrators.get({ org_id: orgB.id, orchestrator_id: missing }));
    const unknown = await failure(asOrgAdmin.orchestrators.get({ org_id: missing, orchestrator_id: missing }));
    expect([unknown.code, unknown.message]).toEqual([other.code, other.message]);
  });

  it("keeps the console for sys_admins: in its own organization an org admin is FORBIDDEN", async () => {
    for (const call of [
      () => asOrgAdmin.organizations.get({ org_id: orgA.id }),
      () => asOrgAdmin.orchestrators.list({ org_id: orgA.id }),
      () => asOrgAdmin.orgSettings.put({ org_id: orgA.id, key: "a.b", value: 1, overridable: false }),
    ]) {
      const error = await failure(call());
      expect(error.code).toBe("FORBIDDEN");
      expect(domainOf(error).details.required_permission).toBe("svc:system:admin");
    }
    expect(await client.organizationSetting.count({ where: { org_id: orgA.id } })).toBe(0);
  });

  it("refuses without a session, and refuses an org_id that is not a UUID before anything else", async () => {
    const unauthenticated = await failure(createCaller({ actor: null }).orchestrators.list({ org_id: orgA.id }));
    expect(unauthenticated.code).toBe("UNAUTHORIZED");
    const bad = await failure(asAdmin.orchestrators.list({ org_id: "not-a-uuid" }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(pathsOf(bad)).toEqual(["org_id"]);
  });

  it("lets a sys_admin into any organization", async () => {
    expect((await asAdmin.organizations.get({ org_id: orgB.id })).id).toBe(orgB.id);
    expect((await asAdmin.orchestrators.list({ org_id: orgB.id })).data).toEqual([]);
  });
});

describe("organizations", () => {
  it("creates, searches, filters and pages through organizations", async () => {
    const acme = await newOrg({ name: "Acme Console", domain: "Acme-Console.example.com", tier: "pro" });
    expect(acme).toMatchObject({ tier: "pro", status: "active", domain: "acme-console.example.com" });
    expect((await asAdmin.organizations.list({ q: "acme-console" })).data.map((o) => o.id)).toEqual([acme.id]);
    expect((await asAdmin.organizations.list({ tier: "pro" })).data.every((o) => o.tier === "pro")).toBe(true);
    await newOrg();
    const first = await asAdmin.organizations.list({ limit: 2 });
    expect(first.next_cursor).not.toBeNull();
    // TanStack's infinite queries add `direction`: dropped, not refused.
    const second = await asAdmin.organizations.list({
      limit: 2,
      cursor: first.next_cursor ?? undefined,
      direction: "forward",
    } as never);
    expect(second.data.map((o) => o.id)).not.toEqual(expect.arrayContaining(first.data.map((o) => o.id)));
  });

  it("edits the profile, and changes tier and status only through the subscription procedure", async () => {
    const org = await newOrg();
    const refused = await failure(asAdmin.organizations.update({ org_id: org.id, tier: "enterprise" } as never));
    expect(refused.code).toBe("BAD_REQUEST");
    expect(pathsOf(refused)).toEqual(["tier"]);
    expect(await asAdmin.organizations.update({ org_id: org.id, display_name: "Org Inc." })).toMatchObject({
      display_name: "Org Inc.",
      tier: "free",
    });
    expect(
      await asAdmin.organizations.updateSubscription({ org_id: org.id, tier: "enterprise", status: "suspended" }),
    ).toMatchObject({
      tier: "enterprise",
      status: "suspended",
    });
  });

  it("maps a duplicate domain to CONFLICT naming the field", async () => {
    await newOrg({ domain: "taken.example.org" });
    const error = await failure(newOrg({ domain: "taken.example.org" }));
    expect(error.code).toBe("CONFLICT");
    expect(pathsOf(error)).toEqual(["domain"]);
  });

  it("soft-deletes, shows deleted ones to sys_admins on request, and restores", async () => {
    const org = await newOrg({ name: unique("Doomed") });
    await asAdmin.organizations.delete({ org_id: org.id });
    expect((await asAdmin.organizations.list({ q: org.name })).data).toEqual([]);
    expect(
      (await asAdmin.organizations.list({ q: org.name, include_deleted: "true" })).data.map((o) => o.is_deleted),
    ).toEqual([true]);
    expect((await failure(asAdmin.organizations.get({ org_id: org.id }))).code).toBe("NOT_FOUND");
    expect(await asAdmin.organizations.get({ org_id: org.id, include_deleted: "true" })).toMatchObject({
      is_deleted: true,
    });
    expect(await asAdmin.organizations.restore({ org_id: org.id })).toMatchObject({ is_deleted: false });
    expect((await asAdmin.organizations.get({ org_id: org.id })).id).toBe(org.id);
  });
});

describe("settings tiers", () => {
  it("manages platform settings with their value_type", async () => {
    const saved = await asAdmin.platformSettings.put({
      key: "console.theme",
      value: "dark",
      value_type: "string",
      overridable: true,
      category: "ui",
    });
    expect(saved).toMatchObject({ key: "console.theme", value: "dark", overridable: true, category: "ui" });
    expect((await asAdmin.platformSettings.list({ limit: 100 })).data.map((s) => s.key)).toEqual(
      expect.arrayContaining(["console.theme", "tier.free"]),
    );
    const wrongType = await failure(
      asAdmin.platformSettings.put({ key: "console.width", value: "wide", value_type: "integer", overridable: false }),
    );
    expect(wrongType.code).toBe("BAD_REQUEST");
    expect(pathsOf(wrongType)).toEqual(["value"]);
    await asAdmin.platformSettings.delete({ key: "console.theme" });
    expect((await asAdmin.platformSettings.list({ limit: 100 })).data.map((s) => s.key)).not.toContain("console.theme");
  });

  it("maps not_overridable to FORBIDDEN with its domain code, and shows the effective value with its source", async () => {
    const org = await newOrg();
    await asAdmin.platformSettings.put({ key: "limits.locked", value: 5, value_type: "integer", overridable: false });
    await asAdmin.platformSettings.put({ key: "limits.open", value: 5, value_type: "integer", overridable: true });

    const locked = await failure(
      asAdmin.orgSettings.put({ org_id: org.id, key: "limits.locked", value: 9, overridable: false }),
    );
    expect(locked.code).toBe("FORBIDDEN");
    expect(domainOf(locked).code).toBe("not_overridable");
    expect(pathsOf(locked)).toEqual(["key"]);

    await asAdmin.orgSettings.put({ org_id: org.id, key: "limits.open", value: 7, overridable: true });
    await asAdmin.orgSettings.put({ org_id: org.id, key: "org.only", value: { a: 1 }, overridable: false });
    expect((await asAdmin.orgSettings.list({ org_id: org.id })).data.map((s) => s.key)).toEqual([
      "limits.open",
      "org.only",
    ]);
    const effective = (await asAdmin.orgSettings.effective({ org_id: org.id })).data;
    expect(effective.filter((s) => s.key.startsWith("limits.") || s.key === "org.only")).toEqual([
      { key: "limits.locked", value: 5, source: "platform", overridable: false },
      { key: "limits.open", value: 7, source: "organization", overridable: true },
      { key: "org.only", value: { a: 1 }, source: "organization", overridable: false },
    ]);
    expect(effective.map((s) => s.key)).not.toContain("tier.free");

    await asAdmin.orgSettings.delete({ org_id: org.id, key: "limits.open" });
    expect(
      (await asAdmin.orgSettings.effective({ org_id: org.id })).data.find((s) => s.key === "limits.open"),
    ).toMatchObject({ source: "platform", value: 5 });
  });

  it("carries domainCode and field errors over HTTP for a not_overridable refusal", async () => {
    const org = await newOrg();
    const body = JSON.stringify({ json: { org_id: org.id, key: "limits.locked", value: 1, overridable: false } });
    const response = await handleTRPCRequest(
      new Request("http://console.test/api/trpc/orgSettings.put", {
        method: "POST",
        headers: { host: "console.test", origin: "http://console.test", "content-type": "application/json" },
        body,
      }),
      async () => adminActor,
    );
    expect(response.status).toBe(403);
    const { error } = (await response.json()) as {
      error: { json: { message: string; data: Record<string, unknown> } };
    };
    expect(error.json.data).toMatchObject({
      code: "FORBIDDEN",
      domainCode: "not_overridable",
      errors: [{ path: "key" }],
    });
    expect(error.json.message).toMatch(/not overridable/);
  });
});

describe("LLM configs", () => {
  const newLlmConfig = (orgId: string, provider: "openai" | "anthropic", apiKey: string) =>
    asAdmin.llmConfigs.create({ org_id: orgId, name: "main", provider, api_key: apiKey });

  it("never returns the provider key, only its last 4 characters", async () => {
    const org = await newOrg();
    const created = await newLlmConfig(org.id, "openai", "sk-secret-value-WXYZ");
    expect(created).toMatchObject({ provider: "openai", api_key_last4: "WXYZ", is_enabled: true });
    const listed = await asAdmin.llmConfigs.list({ org_id: org.id });
    expect(JSON.stringify(listed)).not.toContain("sk-secret");
    expect(listed.data).toHaveLength(1);

    const rotated = await asAdmin.llmConfigs.update({
      org_id: org.id,
      config_id: created.id,
      api_key: "sk-another-key-1234",
      is_enabled: false,
    });
    expect(rotated).toMatchObject({ api_key_last4: "1234", is_enabled: false });
    expect((await asAdmin.llmConfigs.list({ org_id: org.id, enabled: "true" })).data).toEqual([]);

    await asAdmin.llmConfigs.delete({ org_id: org.id, config_id: created.id });
    expect((await failure(asAdmin.llmConfigs.get({ org_id: org.id, config_id: created.id }))).code).toBe("NOT_FOUND");
  });

  it("maps a provider change to BAD_REQUEST immutable_field", async () => {
    const org = await newOrg();
    const config = await newLlmConfig(org.id, "anthropic", "key-12345678");
    const error = await failure(
      asAdmin.llmConfigs.update({ org_id: org.id, config_id: config.id, provider: "openai" }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(domainOf(error).code).toBe("immutable_field");
    expect(pathsOf(error)).toEqual(["provider"]);
  });

  it("names base_url when it points somewhere private", async () => {
    const org = await newOrg();
    const error = await failure(
      asAdmin.llmConfigs.create({
        org_id: org.id,
        name: "x",
        provider: "openai_compatible",
        api_key: "key-12345678",
        base_url: "https://10.0.0.1/v1",
      }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(pathsOf(error)).toEqual(["base_url"]);
  });
});

describe("orchestrators", () => {
  it("creates with a config_hash, filters the list, and shows the effective config with sources", async () => {
    const org = await newOrg();
    await asAdmin.orgSettings.put({ org_id: org.id, key: "chat.greeting", value: "hello", overridable: true });
    const created = await instance(org.id, { config: { temperature: 0.2 }, tier: "hot" });
    expect(created.config_hash).toMatch(/^[0-9a-f]{16}$/);
    await instance(org.id, { framework_type: "google_adk", mode: "handoff" });

    expect((await asAdmin.orchestrators.list({ org_id: org.id, tier: "hot" })).data.map((o) => o.id)).toEqual([
      created.id,
    ]);
    expect((await asAdmin.orchestrators.list({ org_id: org.id, framework_type: "google_adk" })).data).toHaveLength(1);

    const effective = await asAdmin.orchestrators.effectiveConfig({ org_id: org.id, orchestrator_id: created.id });
    expect(effective.config_hash).toBe(created.config_hash);
    expect(effective.data.filter((s) => ["chat.greeting", "temperature"].includes(s.key))).toEqual([
      { key: "chat.greeting", value: "hello", source: "organization", overridable: true },
      { key: "temperature", value: 0.2, source: "instance", overridable: false },
    ]);
  });

  it("maps a framework_type or mode change to BAD_REQUEST immutable_field, naming each field", async () => {
    const org = await newOrg();
    const created = await instance(org.id);
    const error = await failure(
      asAdmin.orchestrators.update({
        org_id: org.id,
        orchestrator_id: created.id,
        framework_type: "google_adk",
        mode: "handoff",
      }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(domainOf(error).code).toBe("immutable_field");
    expect(pathsOf(error)).toEqual(["framework_type", "mode"]);
    const updated = await asAdmin.orchestrators.update({
      org_id: org.id,
      orchestrator_id: created.id,
      whoami: "I help.",
      status: "suspended",
      config: { temperature: 1 },
    });
    expect(updated).toMatchObject({ whoami: "I help.", status: "suspended", framework_type: "langgraph" });
    expect(updated.config_hash).not.toBe(created.config_hash);
  });

  it("maps a locked config key to FORBIDDEN not_overridable naming config.<key>", async () => {
    const org = await newOrg();
    await asAdmin.orgSettings.put({ org_id: org.id, key: "chat.locked", value: true, overridable: false });
    const error = await failure(instance(org.id, { config: { "chat.locked": false } }));
    expect(error.code).toBe("FORBIDDEN");
    expect(domainOf(error).code).toBe("not_overridable");
    expect(pathsOf(error)).toEqual(["config.chat.locked"]);
  });

  it("maps the tier's quota to FORBIDDEN quota_exceeded", async () => {
    const org = await newOrg();
    await instance(org.id);
    await instance(org.id);
    const error = await failure(instance(org.id));
    expect(error.code).toBe("FORBIDDEN");
    expect(domainOf(error).code).toBe("quota_exceeded");
  });
});

describe("central points", () => {
  it("needs pro, keeps names unique, and keeps its orchestrator from being deleted", async () => {
    const org = await newOrg();
    const bot = await instance(org.id);
    const tooLow = await failure(
      asAdmin.centralPoints.create({ org_id: org.id, name: "front door", orchestrator_id: bot.id }),
    );
    expect(tooLow.code).toBe("FORBIDDEN");
    expect(domainOf(tooLow).code).toBe("tier_required");
    expect(tooLow.message).toBe("Central points need the pro tier or higher; this organization is on free.");

    await asAdmin.organizations.updateSubscription({ org_id: org.id, tier: "pro" });
    const point = await asAdmin.centralPoints.create({
      org_id: org.id,
      name: "front door",
      orchestrator_id: bot.id,
      visibility: "public",
    });
    expect(point).toMatchObject({ visibility: "public", status: "active", orchestrator_id: bot.id });
    const clash = await failure(
      asAdmin.centralPoints.create({ org_id: org.id, name: "front door", orchestrator_id: bot.id }),
    );
    expect(clash.code).toBe("CONFLICT");

    const refused = await failure(asAdmin.orchestrators.delete({ org_id: org.id, orchestrator_id: bot.id }));
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toMatch(/Central points refer to this instance: front door/);

    expect(
      await asAdmin.centralPoints.update({ org_id: org.id, central_point_id: point.id, visibility: "private" }),
    ).toMatchObject({ visibility: "private" });
    expect((await asAdmin.centralPoints.list({ org_id: org.id })).data.map((c) => c.id)).toEqual([point.id]);
    await asAdmin.centralPoints.delete({ org_id: org.id, central_point_id: point.id });
    expect((await asAdmin.orchestrators.delete({ org_id: org.id, orchestrator_id: bot.id })).is_deleted).toBe(true);
  });
});

describe("the conversation viewer", () => {
  it("lists members, a member's conversations, and a conversation's messages in order, a page at a time", async () => {
    const org = await newOrg();
    const member = await createUser(client);
    await join(client, member.id, org.id);
    const bot = await instance(org.id);
    const system = systemActor("test");
    const conversation = await createConversation(readContext(system), org.id, {
      instance_id: bot.id,
      user_id: member.id,
      title: "Trip",
    });
    const turn = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b";
    await appendMessages(readContext(system), org.id, conversation.id, {
      messages: ["one", "two", "three"].map((content, i) => ({
        role: i % 2 ? "assistant" : "user",
        content,
        turn_id: turn,
        source: "human",
        metadata: {},
      })),
    });

    const members = await asAdmin.members.list({ org_id: org.id });
    expect(members.data.map((m) => m.username)).toEqual([member.username]);
    const list = await asAdmin.conversations.list({ org_id: org.id, user_id: member.id });
    expect(list.data.map((c) => c.title)).toEqual(["Trip"]);
    const first = await asAdmin.conversations.messages({ org_id: org.id, conversation_id: conversation.id, limit: 2 });
    expect(first.data.map((m) => m.content)).toEqual(["one", "two"]);
    const rest = await asAdmin.conversations.messages({
      org_id: org.id,
      conversation_id: conversation.id,
      limit: 2,
      cursor: first.next_cursor ?? undefined,
    });
    expect(rest.data.map((m) => m.content)).toEqual(["three"]);
    expect(rest.next_cursor).toBeNull();

    // Another organization's conversation is not found through this one.
    const elsewhere = await newOrg();
    expect(
      (await failure(asAdmin.conversations.messages({ org_id: elsewhere.id, conversation_id: conversation.id }))).code,
    ).toBe("NOT_FOUND");
  });
});
