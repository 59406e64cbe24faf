import { describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { appOnOwnDatabase, keyOfEverything } from "@/test/suite";
import { createMember, createSysAdmin, join, searchPlugin } from "@/test/fixtures";
import { readContext } from "@/server/db/context";

// Plugins, the model catalog, conversations and messages over real HTTP.

const { client, app } = await appOnOwnDatabase();
const admin = await createSysAdmin(client);
const key = await keyOfEverything(admin.id);

async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, apiKey = key.raw_key) {
  const response = await app.fetch(path, {
    method,
    headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64");
const schema = {
  type: "object",
  properties: { top_k: { type: "integer", minimum: 1 } },
  required: ["top_k"],
  additionalProperties: false,
};
const plugin = (version: string, extra: Record<string, unknown> = {}) =>
  searchPlugin("com.example.search", version, schema, extra);

describe("plugins", () => {
  it("registers versions and keeps is_latest on the highest semantic version", async () => {
    for (const version of ["1.2.0", "1.10.0", "1.9.9", "1.10.0-beta.1"]) {
      expect((await api("POST", "/api/v1/plugins", plugin(version))).status).toBe(201);
    }
    const { body } = await api<{ data: { version: string; is_latest: boolean }[] }>(
      "GET",
      "/api/v1/plugins?pid=com.example.search",
    );
    expect(body.data.filter((p) => p.is_latest).map((p) => p.version)).toEqual(["1.10.0"]);
    expect((await api("POST", "/api/v1/plugins", plugin("1.2.0"))).status).toBe(409);
  });

  it("keeps exactly one latest version under concurrent registrations", async () => {
    const versions = Array.from({ length: 12 }, (_, i) => `2.${i}.0`);
    const results = await Promise.all(
      versions.map((v) => api("POST", "/api/v1/plugins", plugin(v, { pid: "com.example.race" }))),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const latest = await client.plugin.findMany({ where: { pid: "com.example.race", is_latest: true } });
    expect(latest.map((p) => p.version)).toEqual(["2.11.0"]);
  });

  it.each([
    [{ pid: "Search" }, "pid"],
    [{ version: "1.0" }, "version"],
    [{ settings_schema: { type: "object", properties: { x: { type: "nonsense" } } } }, "settings_schema"],
    [{ default_settings: { top_k: 0 } }, "default_settings.top_k"],
    [{ logo_image: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64") }, "logo_image"],
    [{ logo_image: "not base64!" }, "logo_image"],
  ])("refuses %j naming %s", async (change, path) => {
    const { status, body } = await api<{ errors: { path: string }[] }>(
      "POST",
      "/api/v1/plugins",
      plugin("9.9.9", { pid: "com.example.bad", ...change }),
    );
    expect(status).toBe(400);
    expect(body.errors.some((e) => e.path === path || e.path.startsWith(`${path}.`))).toBe(true);
  });

  it("accepts a PNG logo and shows an organization system plugins plus its own", async () => {
    const { user, org } = await createMember(client);
    void user;
    const own = await api<{ id: string; logo_image: string }>(
      "POST",
      `/api/v1/organizations/${org.id}/plugins`,
      plugin("1.0.0", { pid: "com.acme.crm", logo_image: PNG }),
    );
    expect(own.status).toBe(201);
    expect(own.body.logo_image).toBe(`data:image/png;base64,${PNG}`);
    const catalog = await api<{ data: { pid: string; source: string }[] }>(
      "GET",
      `/api/v1/organizations/${org.id}/plugins?latest=true&limit=100`,
    );
    expect(new Set(catalog.body.data.map((p) => p.pid))).toEqual(
      new Set(["com.example.search", "com.example.race", "com.acme.crm"]),
    );
    // An organization cannot switch a system plugin off for everyone.
    const systemPlugin = await client.plugin.findFirstOrThrow({ where: { source: "system" } });
    expect(
      (await api("PATCH", `/api/v1/organizations/${org.id}/plugins/${systemPlugin.id}`, { enabled: false })).status,
    ).toBe(404);
  });

  it("validates an orchestrator's plugin settings against the plugin's schema, and grounded mode against is_scoped", async () => {
    const { org } = await createMember(client);
    const create = (extra: Record<string, unknown>) =>
      api("POST", `/api/v1/organizations/${org.id}/orchestrators`, {
        name: "bot",
        framework_type: "langgraph",
        mode: "supervisor",
        ...extra,
      });
    expect((await create({ plugin_settings: { "com.example.search": { top_k: 3 } } })).status).toBe(201);
    const bad = await create({ plugin_settings: { "com.example.search": { top_k: "many" } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ path: "plugin_settings.com.example.search.top_k" }] });
    expect((await create({ config: { active_plugins: ["com.unknown.thing"] } })).status).toBe(400);
    const grounded = await create({ mode: "grounded", config: { active_plugins: ["com.example.search"] } });
    expect(grounded.status).toBe(400);
    expect(JSON.stringify(grounded.body)).toContain("grounded");
  });
});

describe("model catalog", () => {
  it("keeps prices exact decimal strings", async () => {
    const created = await api<{ id: number; input_price_per_unit: string }>("POST", "/api/v1/models", {
      provider: "openai",
      model_id: "exact-1",
      input_price_per_unit: "0.00000001",
      output_price_per_unit: "1234567890.12345678",
      aliases: ["exact"],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      input_price_per_unit: "0.00000001",
      output_price_per_unit: "1234567890.12345678",
      currency: "USD",
    });
    const edited = await api("PATCH", `/api/v1/models/${created.body.id}`, { input_price_per_unit: "2.5" });
    expect(edited.body).toMatchObject({ input_price_per_unit: "2.5" });
    expect((await api("PATCH", `/api/v1/models/${created.body.id}`, { input_price_per_unit: 2.5 })).status).toBe(400);
    expect((await api("PATCH", `/api/v1/models/${created.body.id}`, { currency: "XYZ" })).status).toBe(400);
  });

  it("keeps (provider, model_id) unique among enabled models and looks up by alias", async () => {
    expect((await api("POST", "/api/v1/models", { provider: "openai", model_id: "exact-1" })).status).toBe(409);
    const disabled = await api("POST", "/api/v1/models", { provider: "openai", model_id: "exact-1", enabled: false });
    expect(disabled.status).toBe(201);
    expect((await api("GET", "/api/v1/models/lookup?name=exact")).body).toMatchObject({
      model_id: "exact-1",
      enabled: true,
    });
    const filtered = await api<{ data: { provider: string; enabled: boolean }[] }>(
      "GET",
      "/api/v1/models?provider=openai&enabled=false",
    );
    expect(filtered.body.data.every((m) => m.provider === "openai" && !m.enabled)).toBe(true);
  });

  it("is readable with the org permission held in any organization", async () => {
    const { user } = await createMember(client);
    const memberKey = await createApiKey(readContext(systemActor("test")), user.id, {
      name: "m",
      scopes: ["svc:models:read"],
      expires_at: null,
    });
    expect((await api("GET", "/api/v1/models", undefined, memberKey.raw_key)).status).toBe(200);
    expect((await api("POST", "/api/v1/models", { provider: "x", model_id: "y" }, memberKey.raw_key)).status).toBe(403);
  });
});

describe("conversations and messages", () => {
  const newInstance = (orgId: string, kind = { framework_type: "langgraph", mode: "supervisor" }) =>
    api<{ id: string }>("POST", `/api/v1/organizations/${orgId}/orchestrators`, { name: "bot", ...kind });
  const newConversation = (orgId: string, body: Record<string, unknown>) =>
    api<{ id: string; user_id: string }>("POST", `/api/v1/organizations/${orgId}/conversations`, body);

  it("appends messages and reads the history in order, paginated, without intent messages", async () => {
    const { user, org } = await createMember(client);
    await join(client, admin.id, org.id);
    const instance = await newInstance(org.id, { framework_type: "openai_agents", mode: "handoff" });
    const conversation = await newConversation(org.id, {
      instance_id: instance.body.id,
      user_id: user.id,
      title: "Hello",
    });
    expect(conversation.status).toBe(201);
    const path = `/api/v1/organizations/${org.id}/conversations/${conversation.body.id}/messages`;
    const turn = "0190a000-0000-7000-8000-000000000001";
    const batch = Array.from({ length: 30 }, (_, i) => ({
      role: i % 5 === 4 ? "intent" : i % 2 ? "assistant" : "user",
      content: `m${i}`,
      turn_id: turn,
    }));
    expect((await api("POST", path, { messages: batch })).status).toBe(201);
    expect(
      (
        await api("POST", path, {
          messages: [{ role: "tool", content: "m30", turn_id: turn, metadata: { tool: "search" } }],
        })
      ).status,
    ).toBe(201);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const pageResult: { body: { data: { content: string; role: string }[]; next_cursor: string | null } } = await api(
        "GET",
        `${path}?limit=7${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...pageResult.body.data.map((m) => m.content));
      expect(pageResult.body.data.every((m) => m.role !== "intent")).toBe(true);
      cursor = pageResult.body.next_cursor;
    } while (cursor);
    const expected = [
      ...batch
        .map((m, i) => ({ ...m, i }))
        .filter((m) => m.role !== "intent")
        .map((m) => `m${m.i}`),
      "m30",
    ];
    expect(seen).toEqual(expected);

    // The app writes last_accessed_at off the request path, within its flush period.
    await vi.waitFor(
      async () => {
        const accessed = await client.orchestratorInstance.findUniqueOrThrow({ where: { id: instance.body.id } });
        expect(accessed.last_accessed_at).not.toBeNull();
      },
      { timeout: 5_000, interval: 100 },
    );
  });

  it("marks messages compacted and soft-deletes a conversation", async () => {
    const { user, org } = await createMember(client);
    await join(client, admin.id, org.id);
    const instance = await newInstance(org.id, { framework_type: "langgraph", mode: "coordinator" });
    const conversation = await newConversation(org.id, { instance_id: instance.body.id, user_id: user.id });
    const base = `/api/v1/organizations/${org.id}/conversations/${conversation.body.id}`;
    const appended = await api<{ data: { id: string }[] }>("POST", `${base}/messages`, {
      messages: [
        { role: "user", content: "a", turn_id: "0190a000-0000-7000-8000-000000000002" },
        { role: "assistant", content: "b", turn_id: "0190a000-0000-7000-8000-000000000002" },
      ],
    });
    const compacted = await api("POST", `${base}/messages/compact`, { message_ids: [appended.body.data[0]?.id] });
    expect(compacted.body).toEqual({ compacted: 1 });
    const history = await api<{ data: { is_compacted: boolean }[] }>("GET", `${base}/messages`);
    expect(history.body.data.map((m) => m.is_compacted)).toEqual([true, false]);
    const listed = await api<{ data: { id: string }[] }>(
      "GET",
      `/api/v1/organizations/${org.id}/conversations?user_id=${user.id}`,
    );
    expect(listed.body.data.map((c) => c.id)).toEqual([conversation.body.id]);
    expect((await api("DELETE", base)).status).toBe(200);
    expect((await api("GET", `${base}/messages`)).status).toBe(404);
  });

  it("reads an empty history, and finds a conversation only under its own organization", async () => {
    const { user, org } = await createMember(client);
    const { org: other } = await createMember(client);
    const instance = await newInstance(org.id);
    const conversation = await newConversation(org.id, { instance_id: instance.body.id, user_id: user.id });
    const empty = await api("GET", `/api/v1/organizations/${org.id}/conversations/${conversation.body.id}/messages`);
    expect(empty).toEqual({ status: 200, body: { data: [], next_cursor: null } });
    const elsewhere = await api(
      "GET",
      `/api/v1/organizations/${other.id}/conversations/${conversation.body.id}/messages`,
    );
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ code: "not_found" });
  });

  it("pages through a long conversation in order: each message once, the last page without a cursor", async () => {
    const { user, org } = await createMember(client);
    const instance = await newInstance(org.id);
    const conversation = await newConversation(org.id, { instance_id: instance.body.id, user_id: user.id });
    const path = `/api/v1/organizations/${org.id}/conversations/${conversation.body.id}/messages`;
    const turn = "0190a000-0000-7000-8000-000000000003";
    for (let batch = 0; batch < 3; batch++) {
      const messages = Array.from({ length: 100 }, (_, i) => ({
        role: "user",
        content: String(batch * 100 + i),
        turn_id: turn,
      }));
      expect((await api("POST", path, { messages })).status).toBe(201);
    }
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const result: { body: { data: { content: string }[]; next_cursor: string | null } } = await api(
        "GET",
        `${path}?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
      );
      pages.push(result.body.data.map((m) => m.content));
      cursor = result.body.next_cursor;
    } while (cursor && pages.length < 10);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 100]);
    expect(pages.flat()).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));
  });

  it("refuses a conversation for someone outside the organization", async () => {
    const { org } = await createMember(client);
    const { user: outsider } = await createMember(client);
    const instance = await newInstance(org.id);
    const refused = await newConversation(org.id, { instance_id: instance.body.id, user_id: outsider.id });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errors: [{ path: "user_id" }] });
  });
});
