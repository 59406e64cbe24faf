import { describe, expect, it } from "vitest";
import { queryOnce } from "@/test/postgres";
import { appWithSysAdmin } from "@/test/suite";

// Organizations, settings tiers, LLM configs, orchestrator instances and central points over real
// HTTP, as an integration (API key) and a sys_admin in the console (session) use them.

const { client, url, app, key, session } = await appWithSysAdmin();

interface Result<T = Record<string, unknown>> {
  status: number;
  body: T;
}
async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Result<T>> {
  const response = await app.fetch(path, {
    method,
    headers: { "x-api-key": key.raw_key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

let counter = 0;
async function newOrg(extra: Record<string, unknown> = {}) {
  const { status, body } = await api<{ id: string; tier: string }>("POST", "/api/v1/organizations", {
    name: `Org ${++counter}`,
    ...extra,
  });
  expect(status).toBe(201);
  return body;
}
const instanceBody = (extra: Record<string, unknown> = {}) => ({
  name: `bot ${++counter}`,
  framework_type: "langgraph",
  mode: "supervisor",
  ...extra,
});

describe("organizations", () => {
  it("creates, reads and serializes subscription_tier as tier", async () => {
    const { status, body } = await api("POST", "/api/v1/organizations", {
      name: "Acme",
      domain: "Acme.example.com",
      tier: "pro",
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ name: "Acme", domain: "acme.example.com", tier: "pro", status: "active" });
    expect(body).not.toHaveProperty("subscription_tier");
    expect((await api("GET", `/api/v1/organizations/${body.id}`)).body).toMatchObject({ id: body.id, tier: "pro" });
  });

  it("keeps domains unique among organizations that have one", async () => {
    await newOrg({ domain: "shared.example.org" });
    const clash = await api("POST", "/api/v1/organizations", { name: "B", domain: "shared.example.org" });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: "conflict", errors: [{ path: "domain" }] });
    await newOrg();
    await newOrg();
  });

  it("searches by name or domain and filters by tier, paginated", async () => {
    const found = await api<{ data: { name: string }[] }>("GET", "/api/v1/organizations?q=acme");
    expect(found.body.data.map((o) => o.name)).toEqual(["Acme"]);
    const pro = await api<{ data: { tier: string }[] }>("GET", "/api/v1/organizations?tier=pro");
    expect(pro.body.data.every((o) => o.tier === "pro")).toBe(true);
    const first = await api<{ data: { id: string }[]; next_cursor: string }>("GET", "/api/v1/organizations?limit=2");
    expect(first.body.data).toHaveLength(2);
    const next = await api<{ data: { id: string }[] }>(
      "GET",
      `/api/v1/organizations?limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(next.body.data.map((o) => o.id)).not.toContain(first.body.data[0]?.id);
  });

  it("lets only the platform change tier and status, and keeps the profile editable", async () => {
    const org = await newOrg();
    expect((await api("PATCH", `/api/v1/organizations/${org.id}`, { tier: "enterprise" })).status).toBe(400);
    expect((await api("PATCH", `/api/v1/organizations/${org.id}`, { display_name: "Org Inc." })).body).toMatchObject({
      display_name: "Org Inc.",
    });
    expect(
      (await api("PUT", `/api/v1/organizations/${org.id}/subscription`, { tier: "enterprise" })).body,
    ).toMatchObject({ tier: "enterprise" });
  });

  it("soft-deletes; sys_admins still see and restore it", async () => {
    const org = await newOrg();
    const deleted = await session.fetch(`/api/v1/organizations/${org.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ is_deleted: true });
    expect((await api("GET", `/api/v1/organizations/${org.id}`)).status).toBe(404);
    const listed = (await (await session.fetch("/api/v1/organizations?include_deleted=true&limit=100")).json()) as {
      data: { id: string }[];
    };
    expect(listed.data.map((o) => o.id)).toContain(org.id);
    expect((await session.fetch(`/api/v1/organizations/${org.id}?include_deleted=true`)).status).toBe(200);
    const restored = await session.fetch(`/api/v1/organizations/${org.id}/restore`, { method: "POST" });
    expect(await restored.json()).toMatchObject({ is_deleted: false });
    expect((await api("GET", `/api/v1/organizations/${org.id}`)).status).toBe(200);
  });
});

describe("settings tiers", () => {
  it("lets a tier override the one above only where it is overridable, and says where each value comes from", async () => {
    expect(
      (
        await api("PUT", "/api/v1/platform-settings/telemetry.enabled", {
          value: true,
          value_type: "boolean",
          overridable: false,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api("PUT", "/api/v1/platform-settings/agent.max_steps", {
          value: 10,
          value_type: "integer",
          overridable: true,
        })
      ).status,
    ).toBe(200);
    const org = await newOrg();
    const locked = await api("PUT", `/api/v1/organizations/${org.id}/settings/telemetry.enabled`, { value: false });
    expect(locked.status).toBe(403);
    expect(locked.body).toMatchObject({ code: "not_overridable" });
    const wrongType = await api("PUT", `/api/v1/organizations/${org.id}/settings/agent.max_steps`, { value: "many" });
    expect(wrongType.status).toBe(400);
    expect(
      (await api("PUT", `/api/v1/organizations/${org.id}/settings/agent.max_steps`, { value: 25, overridable: false }))
        .status,
    ).toBe(200);
    expect(
      (await api("PUT", `/api/v1/organizations/${org.id}/settings/ui.theme`, { value: "dark", overridable: true }))
        .status,
    ).toBe(200);

    const effective = await api<{ data: { key: string; value: unknown; source: string }[] }>(
      "GET",
      `/api/v1/organizations/${org.id}/effective-settings`,
    );
    const byKey = Object.fromEntries(effective.body.data.map((s) => [s.key, [s.value, s.source]]));
    expect(byKey["telemetry.enabled"]).toEqual([true, "platform"]);
    expect(byKey["agent.max_steps"]).toEqual([25, "organization"]);
    expect(byKey["ui.theme"]).toEqual(["dark", "organization"]);
    expect(byKey).not.toHaveProperty("tier.free");

    const refused = await api(
      "POST",
      `/api/v1/organizations/${org.id}/orchestrators`,
      instanceBody({ config: { "agent.max_steps": 99 } }),
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "not_overridable", errors: [{ path: "config.agent.max_steps" }] });
    const created = await api<{ id: string }>(
      "POST",
      `/api/v1/organizations/${org.id}/orchestrators`,
      instanceBody({ config: { "ui.theme": "light", mode_config: { depth: 2 } } }),
    );
    expect(created.status).toBe(201);
    const config = await api<{ data: { key: string; value: unknown; source: string }[] }>(
      "GET",
      `/api/v1/organizations/${org.id}/orchestrators/${created.body.id}/effective-config`,
    );
    const instanceView = Object.fromEntries(config.body.data.map((s) => [s.key, [s.value, s.source]]));
    expect(instanceView["ui.theme"]).toEqual(["light", "instance"]);
    expect(instanceView.mode_config).toEqual([{ depth: 2 }, "instance"]);
    expect(instanceView["agent.max_steps"]).toEqual([25, "organization"]);
  });

  it("gives instances that may share a pool the same config_hash, and keeps it current when a tier changes", async () => {
    const org = await newOrg({ tier: "pro" });
    const create = (extra: Record<string, unknown>) =>
      api<{ id: string; config_hash: string }>(
        "POST",
        `/api/v1/organizations/${org.id}/orchestrators`,
        instanceBody(extra),
      );
    const a = await create({ whoami: "helper", config: { x: 1, y: { b: 2, a: 1 } } });
    const b = await create({ whoami: "helper", config: { y: { a: 1, b: 2 }, x: 1 } });
    expect(a.body.config_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(a.body.config_hash).toBe(b.body.config_hash);
    // Anything else that makes two instances behave differently gives them different hashes.
    const plugin = await api("POST", "/api/v1/plugins", {
      pid: `com.hash.p${++counter}`,
      version: "1.0.0",
      name: "Hashed",
    });
    expect(plugin.status).toBe(201);
    for (const other of [
      { framework_type: "google_adk" },
      { mode: "handoff" },
      { whoami: "another" },
      { plugin_settings: { [plugin.body.pid as string]: { k: 1 } } },
    ]) {
      const c = await create({ whoami: "helper", config: { x: 1, y: { a: 1, b: 2 } }, ...other });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      expect(c.body.config_hash, JSON.stringify(other)).not.toBe(a.body.config_hash);
    }
    await api("PUT", `/api/v1/organizations/${org.id}/settings/ui.density`, { value: "compact", overridable: true });
    const after = await api<{ config_hash: string }>(
      "GET",
      `/api/v1/organizations/${org.id}/orchestrators/${a.body.id}`,
    );
    expect(after.body.config_hash).not.toBe(a.body.config_hash);
    await api("PUT", "/api/v1/platform-settings/ui.font", { value: "serif", value_type: "string", overridable: true });
    const again = await api<{ config_hash: string }>(
      "GET",
      `/api/v1/organizations/${org.id}/orchestrators/${a.body.id}`,
    );
    expect(again.body.config_hash).not.toBe(after.body.config_hash);
    const wrongType = await api("PATCH", `/api/v1/organizations/${org.id}/orchestrators/${a.body.id}`, {
      config: { "ui.font": 12 },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({
      code: "validation_failed",
      errors: [{ path: "config.ui.font", message: "must be a string" }],
    });
  });
});

describe("LLM configs", () => {
  const newLlmConfig = (orgId: string, body: Record<string, unknown>) =>
    api<{ id: string }>("POST", `/api/v1/organizations/${orgId}/llm-configs`, body);

  it("stores the provider key encrypted and returns only its last 4 characters", async () => {
    const org = await newOrg();
    const created = await newLlmConfig(org.id, {
      name: "main",
      provider: "openai",
      api_key: "sk-live-1234567890abcd",
      base_url: "https://api.openai.com/v1",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ provider: "openai", api_key_last4: "abcd" });
    expect(JSON.stringify(created.body)).not.toContain("sk-live");
    const row = await client.organizationLlmConfig.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.api_key).not.toContain("sk-live");
    expect(row.api_key).toMatch(/^bound:v1:/);
    const listed = await api("GET", `/api/v1/organizations/${org.id}/llm-configs`);
    expect(JSON.stringify(listed.body)).not.toContain("sk-live");
    expect(app.logs()).not.toContain("sk-live-1234567890abcd");
  });

  it("fixes the provider after creation and hides disabled configs from new orchestrators", async () => {
    const org = await newOrg();
    const { body } = await newLlmConfig(org.id, {
      name: "a",
      provider: "anthropic",
      api_key: "sk-ant-000000001111",
      is_enabled: false,
    });
    const change = await api("PATCH", `/api/v1/organizations/${org.id}/llm-configs/${body.id}`, { provider: "openai" });
    expect(change.status).toBe(400);
    expect(change.body).toMatchObject({ code: "immutable_field" });
    expect(
      (
        await api("PATCH", `/api/v1/organizations/${org.id}/llm-configs/${body.id}`, {
          provider: "anthropic",
          name: "b",
        })
      ).status,
    ).toBe(200);
    const enabled = await api<{ data: unknown[] }>("GET", `/api/v1/organizations/${org.id}/llm-configs?enabled=true`);
    expect(enabled.body.data).toEqual([]);
  });

  it.each([
    ["http://api.example.com", "must use https"],
    ["https://10.0.0.5/v1", "must not point to a private"],
    ["https://169.254.169.254/latest", "must not point to a private"],
    ["https://[::1]/", "must not point to a private"],
    ["https://localhost:8443", "must not point to a private"],
    ["https://user:pw@api.example.com", "must not carry credentials"],
  ])("refuses the base_url %s", async (base_url, message) => {
    const org = await newOrg();
    const { status, body } = await api<{ errors: { path: string; message: string }[] }>(
      "POST",
      `/api/v1/organizations/${org.id}/llm-configs`,
      { name: "x", provider: "openai", api_key: "sk-000000000000", base_url },
    );
    expect(status).toBe(400);
    expect(body.errors[0]).toMatchObject({ path: "base_url" });
    expect(body.errors[0]?.message).toContain(message);
  });

  it("shows a tampered stored key as unreadable (logged) rather than answering with garbage or failing the list", async () => {
    const org = await newOrg();
    const create = (name: string, api_key: string) => newLlmConfig(org.id, { name, provider: "openai", api_key });
    const { body } = await create("t", "sk-tamper-0000000000");
    await create("fine", "sk-fine-000000001111");
    await queryOnce(
      url,
      "UPDATE organization_llm_configs SET api_key = regexp_replace(api_key, ':[^:]+$', ':AAAA') WHERE id = $1",
      [body.id],
    );
    const read = await api("GET", `/api/v1/organizations/${org.id}/llm-configs/${body.id}`);
    expect(read).toMatchObject({ status: 200, body: { api_key_readable: false, api_key_last4: null } });
    const list = await api<{ data: { name: string; api_key_readable: boolean; api_key_last4: string | null }[] }>(
      "GET",
      `/api/v1/organizations/${org.id}/llm-configs`,
    );
    expect(list.status).toBe(200);
    expect(list.body.data.map((c) => [c.name, c.api_key_readable, c.api_key_last4])).toEqual(
      expect.arrayContaining([
        ["t", false, null],
        ["fine", true, "1111"],
      ]),
    );
    expect(app.logs()).toMatch(/cannot be decrypted/);
    // A new key makes it readable again.
    expect(
      (
        await api("PATCH", `/api/v1/organizations/${org.id}/llm-configs/${body.id}`, {
          api_key: "sk-fresh-000000002222",
        })
      ).body,
    ).toMatchObject({ api_key_readable: true, api_key_last4: "2222" });
  });

  it("binds a stored key to its row: copied to another config, it does not decrypt there", async () => {
    const org = await newOrg();
    const other = await newOrg();
    const source = (await newLlmConfig(org.id, { name: "a", provider: "openai", api_key: "sk-victim-00000000aaaa" }))
      .body;
    const target = (await newLlmConfig(other.id, { name: "b", provider: "openai", api_key: "sk-attack-00000000bbbb" }))
      .body;
    await queryOnce(
      url,
      "UPDATE organization_llm_configs SET api_key = (SELECT api_key FROM organization_llm_configs WHERE id = $1) WHERE id = $2",
      [source.id, target.id],
    );
    expect((await api("GET", `/api/v1/organizations/${other.id}/llm-configs/${target.id}`)).body).toMatchObject({
      api_key_readable: false,
      api_key_last4: null,
    });
  });
});

describe("orchestrator instances", () => {
  it("keeps framework_type and mode immutable and validates the enums", async () => {
    const org = await newOrg();
    const { body } = await api<{ id: string }>("POST", `/api/v1/organizations/${org.id}/orchestrators`, instanceBody());
    const change = await api("PATCH", `/api/v1/organizations/${org.id}/orchestrators/${body.id}`, { mode: "grounded" });
    expect(change.status).toBe(400);
    expect(change.body).toMatchObject({ code: "immutable_field", errors: [{ path: "mode" }] });
    const update = await api("PATCH", `/api/v1/organizations/${org.id}/orchestrators/${body.id}`, {
      status: "suspended",
      tier: "hot",
      whoami: "You are helpful.",
    });
    expect(update.body).toMatchObject({ status: "suspended", tier: "hot", whoami: "You are helpful." });
    expect(
      (await api("POST", `/api/v1/organizations/${org.id}/orchestrators`, instanceBody({ framework_type: "crewai" })))
        .status,
    ).toBe(400);
    const filtered = await api<{ data: { id: string }[] }>(
      "GET",
      `/api/v1/organizations/${org.id}/orchestrators?status=suspended`,
    );
    expect(filtered.body.data.map((i) => i.id)).toEqual([body.id]);
  });

  it("enforces the tier's max_orchestrators, also under concurrent creation", async () => {
    const org = await newOrg({ tier: "free" });
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => api("POST", `/api/v1/organizations/${org.id}/orchestrators`, instanceBody())),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 403, 403]);
    expect(results.find((r) => r.status === 403)?.body).toMatchObject({ code: "quota_exceeded" });
    expect(await client.orchestratorInstance.count({ where: { org_id: org.id } })).toBe(2);
  });
});

describe("central points", () => {
  it("need the pro tier", async () => {
    const org = await newOrg({ tier: "free" });
    const instance = await api<{ id: string }>("POST", `/api/v1/organizations/${org.id}/orchestrators`, instanceBody());
    const refused = await api("POST", `/api/v1/organizations/${org.id}/central-points`, {
      name: "public-api",
      orchestrator_id: instance.body.id,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "tier_required" });
  });

  it("keep names unique among live ones and protect the instances they point to", async () => {
    const org = await newOrg({ tier: "pro" });
    const instance = await api<{ id: string }>("POST", `/api/v1/organizations/${org.id}/orchestrators`, instanceBody());
    const point = await api<{ id: string; visibility: string }>(
      "POST",
      `/api/v1/organizations/${org.id}/central-points`,
      { name: "support", orchestrator_id: instance.body.id },
    );
    expect(point.status).toBe(201);
    expect(point.body.visibility).toBe("private");
    const clash = await api("POST", `/api/v1/organizations/${org.id}/central-points`, {
      name: "support",
      orchestrator_id: instance.body.id,
    });
    expect(clash.status).toBe(409);
    const blocked = await api<{ code: string; detail: string }>(
      "DELETE",
      `/api/v1/organizations/${org.id}/orchestrators/${instance.body.id}`,
    );
    expect(blocked.status).toBe(409);
    expect(blocked.body.detail).toContain("support");
    expect((await api("DELETE", `/api/v1/organizations/${org.id}/central-points/${point.body.id}`)).status).toBe(200);
    expect(
      (
        await api("POST", `/api/v1/organizations/${org.id}/central-points`, {
          name: "support",
          orchestrator_id: instance.body.id,
          visibility: "public",
        })
      ).status,
    ).toBe(201);
  });

  it("let one of two racing creations of the same name win: one 201, one 409", async () => {
    const org = await newOrg({ tier: "pro" });
    const instance = await api<{ id: string }>("POST", `/api/v1/organizations/${org.id}/orchestrators`, instanceBody());
    const racing = await Promise.all(
      [1, 2].map(() =>
        api("POST", `/api/v1/organizations/${org.id}/central-points`, {
          name: "race",
          orchestrator_id: instance.body.id,
        }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await client.centralPoint.count({ where: { org_id: org.id, name: "race" } })).toBe(1);
  });

  it("cannot point at another organization's instance", async () => {
    const org = await newOrg({ tier: "pro" });
    const other = await newOrg({ tier: "pro" });
    const foreign = await api<{ id: string }>(
      "POST",
      `/api/v1/organizations/${other.id}/orchestrators`,
      instanceBody(),
    );
    const refused = await api("POST", `/api/v1/organizations/${org.id}/central-points`, {
      name: "x",
      orchestrator_id: foreign.body.id,
    });
    expect(refused.status).toBe(404);
  });
});
