import superjson from "superjson";
import { describe, expect, it, vi } from "vitest";
import { CHECKED_SETTINGS_MAX_BYTES, SETTINGS_SCHEMA_MAX_BYTES } from "@/lib/schemas/plugins";
import { CHECK_BUDGET_MS } from "@/server/services/plugins/json-schema";
import { createMember, createUserWith, searchPlugin } from "@/test/fixtures";
import { EXPONENTIAL_DEFS, nestedArrays } from "@/test/hostile-schemas";
import { callerAs, consoleOperations, consoleTestbed, domainOf, failure, pathsOf } from "@/test/trpc";
import { handleTRPCRequest } from "./http";
import { createCaller } from "./root";

// The console's plugins and models procedures against this file's own PostgreSQL database: called
// in-process with real session actors, and over the HTTP endpoint where superjson carries prices
// and the settings check travels as a POST.

vi.mock("@/server/session", () => ({
  currentSessionActor: vi.fn(async () => {
    throw new Error("the session must not be read");
  }),
}));

const { client, adminActor, asAdmin } = await consoleTestbed();

const { user: member } = await createMember(client);
// Holds every catalog permission through a custom system role, but is not a sys_admin.
const catalogManager = await createUserWith(client, ["svc:system:plugins:write", "svc:system:models:write"]);

const schema = {
  type: "object",
  properties: {
    top_k: { type: "integer", minimum: 1, title: "Top K" },
    mode: { type: "string", enum: ["fast", "deep"] },
  },
  required: ["top_k"],
  additionalProperties: false,
};
let pidCounter = 0;
const newPid = () => `com.example.console${++pidCounter}`;
const plugin = (pid: string, version: string, extra: Record<string, unknown> = {}) =>
  searchPlugin(pid, version, schema, extra);
const UNKNOWN_ID = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b";

describe("authorization", () => {
  it("declares the catalog permissions on each procedure", () => {
    const declared = Object.fromEntries(
      consoleOperations
        .filter(({ path }) => path.startsWith("plugins.") || path.startsWith("models."))
        .map(({ path, operation }) => [
          path,
          typeof operation.access === "object" ? operation.access.permission : operation.access,
        ]),
    );
    expect(declared).toEqual({
      "plugins.list": "svc:plugins:read",
      "plugins.get": "svc:plugins:read",
      "plugins.checkSettings": "svc:plugins:read",
      "plugins.register": "svc:system:plugins:write",
      "plugins.setEnabled": "svc:system:plugins:write",
      "models.list": "svc:models:read",
      "models.get": "svc:models:read",
      "models.lookup": "svc:models:read",
      "models.create": "svc:system:models:write",
      "models.update": "svc:system:models:write",
    });
  });

  it("answers UNAUTHORIZED without a session", async () => {
    const error = await failure(createCaller({ actor: null }).plugins.list({}));
    expect(error.code).toBe("UNAUTHORIZED");
  });

  it.each([
    ["an organization member (who may read the catalogs over REST)", () => member.id],
    ["a user holding the catalog write permissions without being a sys_admin", () => catalogManager.id],
  ])("refuses %s every procedure with FORBIDDEN, changing nothing", async (_label, userId) => {
    const caller = await callerAs(userId());
    const pluginsBefore = await client.plugin.count();
    const modelsBefore = await client.providerModelConfig.count();
    const calls = [
      () => caller.plugins.list({ latest: "true" }),
      () => caller.plugins.get({ plugin_id: UNKNOWN_ID }),
      () => caller.plugins.register(plugin(newPid(), "1.0.0")),
      () => caller.plugins.setEnabled({ plugin_id: UNKNOWN_ID, enabled: false }),
      () => caller.plugins.checkSettings({ settings_schema: schema, settings: { top_k: 1 } }),
      () => caller.models.list({}),
      () => caller.models.get({ model_config_id: 1 }),
      () => caller.models.create({ provider: "openai", model_id: "forbidden" }),
      () => caller.models.update({ model_config_id: 1, enabled: false }),
    ];
    for (const call of calls) {
      const error = await failure(call());
      expect(error.code).toBe("FORBIDDEN");
      expect(domainOf(error).details.required_permission).toBe("svc:system:admin");
    }
    expect(await client.plugin.count()).toBe(pluginsBefore);
    expect(await client.providerModelConfig.count()).toBe(modelsBefore);
  });
});

describe("plugins", () => {
  it("registers versions, keeps the highest semantic version latest, and lists a pid's versions", async () => {
    const pid = newPid();
    for (const version of ["1.2.0", "1.10.0", "1.9.9"]) await asAdmin.plugins.register(plugin(pid, version));
    const versions = await asAdmin.plugins.list({ pid, limit: 10 });
    expect(versions.data.map((p) => p.version).sort()).toEqual(["1.10.0", "1.2.0", "1.9.9"]);
    expect(versions.data.filter((p) => p.is_latest).map((p) => p.version)).toEqual(["1.10.0"]);
    const latest = await asAdmin.plugins.list({ latest: "true", limit: 100 });
    expect(latest.data.filter((p) => p.pid === pid).map((p) => p.version)).toEqual(["1.10.0"]);
    expect(latest.data.every((p) => p.source === "system" && p.is_latest)).toBe(true);
  });

  it("answers CONFLICT naming the version for a version registered twice", async () => {
    const pid = newPid();
    await asAdmin.plugins.register(plugin(pid, "1.0.0"));
    const error = await failure(asAdmin.plugins.register(plugin(pid, "1.0.0", { name: "Again" })));
    expect(error.code).toBe("CONFLICT");
    expect(domainOf(error).code).toBe("conflict");
    expect(pathsOf(error)).toEqual(["version"]);
    expect(await client.plugin.count({ where: { pid } })).toBe(1);
  });

  it.each([
    [
      "a settings_schema that is no JSON Schema",
      { settings_schema: { type: "object", properties: { top_k: { type: "nonsense" } } } },
      "settings_schema.properties.top_k.type",
    ],
    ["default_settings the schema refuses", { default_settings: { top_k: 0 } }, "default_settings.top_k"],
    [
      "default_settings with a field the schema does not know",
      { default_settings: { top_k: 2, extra: true } },
      "default_settings",
    ],
    ["a pid that is not reverse-domain", { pid: "Search" }, "pid"],
    ["a version that is not semantic", { version: "1.0" }, "version"],
    [
      "an SVG logo",
      { logo_image: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64") },
      "logo_image",
    ],
    ["an unknown field", { surprise: 1 }, "surprise"],
  ])("maps %s to BAD_REQUEST with the field's path", async (_label, change, path) => {
    const pid = newPid();
    const error = await failure(asAdmin.plugins.register(plugin(pid, "1.0.0", change)));
    expect(error.code).toBe("BAD_REQUEST");
    expect(domainOf(error).code).toBe("validation_failed");
    expect(pathsOf(error)).toContain(path);
    expect(await client.plugin.count({ where: { pid } })).toBe(0);
  });

  it("enables and disables one version, and answers NOT_FOUND for another organization's plugin", async () => {
    const pid = newPid();
    const registered = await asAdmin.plugins.register(plugin(pid, "1.0.0"));
    expect((await asAdmin.plugins.setEnabled({ plugin_id: registered.id, enabled: false })).enabled).toBe(false);
    expect((await asAdmin.plugins.get({ plugin_id: registered.id })).enabled).toBe(false);
    expect((await asAdmin.plugins.list({ pid, enabled: "true" })).data).toEqual([]);
    expect((await asAdmin.plugins.setEnabled({ plugin_id: registered.id, enabled: true })).enabled).toBe(true);

    const { org } = await createMember(client);
    const own = await client.plugin.create({
      data: { source: "org", org_id: org.id, pid: newPid(), version: "1.0.0", name: "Own", is_latest: true },
    });
    expect((await failure(asAdmin.plugins.setEnabled({ plugin_id: own.id, enabled: false }))).code).toBe("NOT_FOUND");
    expect((await failure(asAdmin.plugins.get({ plugin_id: own.id }))).code).toBe("NOT_FOUND");
    expect((await asAdmin.plugins.list({ pid: own.pid })).data).toEqual([]);
  });
});

describe("the settings check (the settings form's, console only)", () => {
  type Problem = { path: string; message: string };
  const problemsOf = (error: unknown) => (domainOf(error as never).details.errors ?? []) as Problem[];

  /** The check's problems, whether answered or refused as input (with the answer's schema_valid). */
  const check = (settings_schema: object, settings: unknown) =>
    asAdmin.plugins.checkSettings({ settings_schema, settings } as never).then(
      (answer) => answer,
      (error: unknown) => ({ schema_valid: null, problems: problemsOf(error) }),
    );

  /** What registering says of the same schema and settings (as default_settings), named as the check names them. */
  const registrationProblems = async (settings_schema: object, default_settings: object) => {
    const input = { ...plugin(newPid(), "1.0.0"), settings_schema, default_settings };
    const problems = await asAdmin.plugins.register(input as never).then(() => [], problemsOf);
    return problems.map((p) => ({ ...p, path: p.path.replace(/^default_settings(?=\.|$)/, "settings") }));
  };

  const withDottedKey = {
    ...schema,
    properties: { ...schema.properties, "a.b": { type: "object", properties: { c: { type: "integer" } } } },
  };
  const nested = (depth: number) => Array.from({ length: depth }).reduce<object>((inner) => ({ not: inner }), {});
  const exponential = { type: "object", properties: { n: { $ref: "#/$defs/n" } }, $defs: EXPONENTIAL_DEFS };

  // Hostile schemas fail these by hanging (the test timeout) if a check is not bounded.
  it.each<[string, object, object, boolean | null]>([
    ["settings that satisfy the schema", schema, { top_k: 5, mode: "fast" }, true],
    ["several problems at once", schema, { top_k: 0, mode: "slow", extra: 1 }, true],
    ["a missing required property", schema, { mode: "deep" }, true],
    ["a problem under a key holding a dot", withDottedKey, { top_k: 1, "a.b": { c: "x" } }, true],
    ["a schema that is no JSON Schema", { type: "object", properties: { a: { type: "nonsense" } } }, {}, false],
    ["a pattern RE2 cannot run", { type: "object", properties: { a: { pattern: "^(?!admin)" } } }, {}, false],
    [
      "a backtracking pattern against 5,000 characters",
      { type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } },
      { a: `${"a".repeat(5000)}!` },
      true,
    ],
    ["work exponential in the data, stopped at the time budget", exponential, { n: nestedArrays(58) }, true],
    ["a schema 40 levels deep", nested(40), {}, false],
    ["a schema over the size cap", { description: "x".repeat(SETTINGS_SCHEMA_MAX_BYTES) }, {}, null],
    ["a schema 10,000 levels deep", nested(10_000), {}, null],
  ])("says what registering says of %s", async (_label, settingsSchema, settings, schemaValid) => {
    const answer = await check(settingsSchema, settings);
    expect(answer.problems).toEqual(await registrationProblems(settingsSchema, settings));
    expect(answer.schema_valid).toBe(schemaValid);
  });

  it("names the problems the console places on its fields", async () => {
    expect((await check(withDottedKey, { top_k: 0, "a.b": { c: "x" } })).problems).toEqual([
      { path: "settings.top_k", message: "must be >= 1" },
      { path: "settings.a.b.c", message: "must be integer" },
    ]);
    expect((await check(exponential, { n: nestedArrays(58) })).problems).toEqual([
      { path: "settings", message: `could not be checked within ${CHECK_BUDGET_MS} ms` },
    ]);
    // Any JSON value can be checked, not only an object.
    expect(await check({ type: "string", maxLength: 2 }, "abc")).toEqual({
      schema_valid: true,
      problems: [{ path: "settings", message: "must NOT have more than 2 characters" }],
    });
  });

  it("refuses settings over its cap as input", async () => {
    expect((await check({}, { text: "x".repeat(CHECKED_SETTINGS_MAX_BYTES) })).problems).toEqual([
      { path: "settings", message: "must be at most 256 KiB of JSON" },
    ]);
  });

  it("writes nothing, not even an audit event", async () => {
    const before = [await client.auditEvent.count(), await client.plugin.count()];
    await check(schema, { top_k: 0 });
    await check(nested(40), {});
    expect([await client.auditEvent.count(), await client.plugin.count()]).toEqual(before);
  });
});

describe("models", () => {
  let counter = 0;
  const newModelId = () => `console-model-${++counter}`;

  it("keeps prices exact: strings in, the same strings out, never numbers", async () => {
    const created = await asAdmin.models.create({
      provider: "OpenAI",
      model_id: newModelId(),
      input_price_per_unit: "0.00000001",
      output_price_per_unit: "9999999999.99999999",
    });
    expect(created).toMatchObject({
      provider: "openai",
      input_price_per_unit: "0.00000001",
      output_price_per_unit: "9999999999.99999999",
    });
    const updated = await asAdmin.models.update({
      model_config_id: created.id,
      input_price_per_unit: "0.00000125",
      output_price_per_unit: null,
    });
    expect(updated).toMatchObject({ input_price_per_unit: "0.00000125", output_price_per_unit: null });
    expect((await asAdmin.models.get({ model_config_id: created.id })).input_price_per_unit).toBe("0.00000125");
  });

  it.each([
    ["a number", 0.5],
    ["too many fraction digits", "0.000000001"],
    ["an exponent", "1e-8"],
    ["a negative price", "-1"],
  ])("refuses a price given as %s, naming the field", async (_label, price) => {
    const error = await failure(
      asAdmin.models.create({ provider: "openai", model_id: newModelId(), input_price_per_unit: price as string }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(pathsOf(error)).toEqual(["input_price_per_unit"]);
  });

  it("answers CONFLICT naming model_id for a second enabled model of a provider, also when enabling one", async () => {
    const modelId = newModelId();
    await asAdmin.models.create({ provider: "anthropic", model_id: modelId });
    const error = await failure(asAdmin.models.create({ provider: "anthropic", model_id: modelId }));
    expect(error.code).toBe("CONFLICT");
    expect(domainOf(error).details.errors).toEqual([
      { path: "model_id", message: "An enabled model with this provider and model_id exists." },
    ]);

    const disabled = await asAdmin.models.create({ provider: "anthropic", model_id: modelId, enabled: false });
    const enabling = await failure(asAdmin.models.update({ model_config_id: disabled.id, enabled: true }));
    expect(enabling.code).toBe("CONFLICT");
    expect(pathsOf(enabling)).toEqual(["model_id"]);
  });

  it("refuses changing provider or model_id, and unknown ids", async () => {
    const created = await asAdmin.models.create({ provider: "openai", model_id: newModelId() });
    const error = await failure(asAdmin.models.update({ model_config_id: created.id, model_id: "renamed" } as never));
    expect(error.code).toBe("BAD_REQUEST");
    expect(pathsOf(error)).toEqual(["model_id"]);
    expect((await failure(asAdmin.models.update({ model_config_id: 999_999, enabled: false }))).code).toBe("NOT_FOUND");
    expect((await failure(asAdmin.models.get({ model_config_id: 999_999 }))).code).toBe("NOT_FOUND");
  });

  it("searches, filters by provider, category and enabled, and pages with the cursor", async () => {
    const provider = `filter${Date.now().toString(36)}`;
    await asAdmin.models.create({ provider, model_id: newModelId(), model_category: "embedding" });
    await asAdmin.models.create({ provider, model_id: newModelId(), enabled: false });
    const named = await asAdmin.models.create({ provider, model_id: newModelId(), display_name: `Named ${provider}` });
    expect((await asAdmin.models.list({ provider })).data).toHaveLength(3);
    // The search matches the provider, the model ID or the display name, case aside.
    expect((await asAdmin.models.list({ q: provider.toUpperCase() })).data).toHaveLength(3);
    expect((await asAdmin.models.list({ provider, q: named.model_id })).data.map((m) => m.id)).toEqual([named.id]);
    expect((await asAdmin.models.list({ q: `named ${provider}` })).data.map((m) => m.id)).toEqual([named.id]);
    expect((await asAdmin.models.list({ provider, model_category: "embedding" })).data).toHaveLength(1);
    expect((await asAdmin.models.list({ provider, enabled: "false" })).data).toHaveLength(1);
    const first = await asAdmin.models.list({ provider, limit: 2 });
    expect(first.next_cursor).not.toBeNull();
    const second = await asAdmin.models.list({
      provider,
      limit: 2,
      cursor: first.next_cursor ?? undefined,
      direction: "forward",
    } as never);
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
  });
});

describe("over HTTP", () => {
  const BASE = "http://console.test/api/trpc";
  const post = (path: string, input: unknown, origin = "http://console.test") =>
    handleTRPCRequest(
      new Request(`${BASE}/${path}`, {
        method: "POST",
        headers: { host: "console.test", origin, "content-type": "application/json" },
        body: JSON.stringify(superjson.serialize(input)),
      }),
      async () => adminActor,
    );
  const query = (path: string, input: unknown) =>
    handleTRPCRequest(
      new Request(`${BASE}/${path}?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`, {
        headers: { host: "console.test" },
      }),
      async () => adminActor,
    );

  it("carries a price as the exact string, in the wire text and after superjson", async () => {
    const created = await post("models.create", {
      provider: "openai",
      model_id: "wire-exact",
      input_price_per_unit: "0.00000001",
    });
    expect(created.status).toBe(200);
    const text = await created.text();
    expect(text).toContain('"input_price_per_unit":"0.00000001"');
    const model = superjson.deserialize<{ id: number; input_price_per_unit: string }>(
      (JSON.parse(text) as { result: { data: never } }).result.data,
    );
    expect(model.input_price_per_unit).toBe("0.00000001");

    const read = await query("models.get", { model_config_id: model.id });
    expect(await read.text()).toContain('"input_price_per_unit":"0.00000001"');
  });

  it("answers the settings check sent as a POST, its schema too large for a URL, from the console only", async () => {
    const large = { ...schema, description: "x".repeat(SETTINGS_SCHEMA_MAX_BYTES - 500) };
    const input = { settings_schema: large, settings: { top_k: 0 } };
    const response = await post("plugins.checkSettings", input);
    expect(response.status).toBe(200);
    expect(superjson.deserialize((await response.json()).result.data)).toEqual({
      schema_valid: true,
      problems: [{ path: "settings.top_k", message: "must be >= 1" }],
    });
    expect((await post("plugins.checkSettings", input, "https://evil.example")).status).toBe(403);
    // Like any query, it also answers over GET.
    const read = await query("plugins.checkSettings", { settings_schema: schema, settings: {} });
    expect(superjson.deserialize((await read.json()).result.data)).toMatchObject({
      problems: [{ path: "settings", message: "must have required property 'top_k'" }],
    });
  });

  it("exposes the field errors of a bad settings_schema to the form", async () => {
    const response = await post(
      "plugins.register",
      plugin(newPid(), "1.0.0", { settings_schema: { type: "object", properties: { top_k: { minimum: "one" } } } }),
    );
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as {
      error: { json: { data: { domainCode: string; errors: { path: string; message: string }[] } } };
    };
    expect(error.json.data.domainCode).toBe("validation_failed");
    expect(error.json.data.errors).toContainEqual({
      path: "settings_schema.properties.top_k.minimum",
      message: "is not a valid JSON Schema: must be number",
    });
  });
});
