import http from "node:http";
import { describe, expect, it } from "vitest";
import { checkAnswer } from "@/test/answers";
import { appOnOwnDatabase, consoleSession, keyOfEverything } from "@/test/suite";
import { createOrg, createSysAdmin } from "@/test/fixtures";
import { EXPONENTIAL_SETTINGS, nestedArrays } from "@/test/hostile-schemas";

// Hostile requests against the production build: none may hold the server, reach inside the
// network, or draw a 5xx. Each answers 4xx problem+json with X-Request-Id (or succeeds where it is
// legitimate), and /api/health keeps answering meanwhile.

const { client, app } = await appOnOwnDatabase();
const admin = await createSysAdmin(client);
const key = await keyOfEverything(admin.id);
const tenantA = await createOrg(client);
const tenantB = await createOrg(client);
// Room for the orchestrators these tests create.
await client.organization.update({ where: { id: tenantA.id }, data: { subscription_tier: "enterprise" } });

interface Answer {
  status: number;
  type: string;
  requestId: string | null;
  body: Record<string, unknown>;
}

async function send(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await app.fetch(path, {
    method,
    headers: {
      "x-api-key": key.raw_key,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get("content-type") ?? "",
    requestId: response.headers.get("x-request-id"),
    body:
      text && response.headers.get("content-type")?.includes("json")
        ? (JSON.parse(text) as Record<string, unknown>)
        : { text },
  };
}

const json = (method: string, path: string, value: unknown) => send(method, path, JSON.stringify(value));

/** A problem+json answer with this status and code, and X-Request-Id; its field errors' paths. */
function expectProblem(answer: Answer, status: number, code: string): string[] {
  expect(answer, JSON.stringify(answer.body)).toMatchObject({
    status,
    type: "application/problem+json",
    body: { status, code },
  });
  expect(answer.requestId).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  return ((answer.body.errors as { path: string }[] | undefined) ?? []).map((e) => e.path);
}

/** A request fetch cannot make (TRACE), over node:http; its answer checked like fetch's. */
function rawRequest(
  method: string,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(path, app.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        const headers = new Headers(
          Object.entries(response.headers).map(([name, value]): [string, string] => [name, String(value)]),
        );
        try {
          checkAnswer(method, url, { status: response.statusCode ?? 0, headers, text: body });
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    request.on("error", reject);
    request.end();
  });
}

const plugin = (pid: string, extra: Record<string, unknown> = {}) => ({
  pid,
  version: "1.0.0",
  name: "Plugin",
  ...extra,
});

/**
 * /api/health while `work` is in flight: every answer comes (within the 3 s liveness bound) and is
 * 200. Health requests follow one another from the moment `work` is sent until its answer is in,
 * so a server that `work` holds up keeps one of them waiting.
 */
async function healthDuring<T>(work: Promise<T>): Promise<{ result: T; health: number[] }> {
  const health: number[] = [];
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  do {
    const response = await app.fetch("/api/health", { signal: AbortSignal.timeout(3000) });
    health.push(response.status);
  } while (!done);
  return { result: await settled, health };
}

describe("tenants' JSON Schemas", () => {
  it("checks a backtracking pattern without holding the server", async () => {
    const settings_schema = { type: "object", additionalProperties: { type: "string", pattern: "^(a+)+$" } };
    const { result, health } = await healthDuring(
      json(
        "POST",
        `/api/v1/organizations/${tenantA.id}/plugins`,
        plugin("com.tenant.redos", { settings_schema, default_settings: { name: `${"a".repeat(60)}!` } }),
      ),
    );
    expect(expectProblem(result, 400, "validation_failed")).toEqual(["default_settings.name"]);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);
    // The exact schema is legitimate: `pattern` only applies to strings.
    expect(
      (
        await json(
          "POST",
          `/api/v1/organizations/${tenantA.id}/plugins`,
          plugin("com.tenant.redos2", { settings_schema: { pattern: "^(a+)+$" } }),
        )
      ).status,
    ).toBe(201);
  });

  it("stops a schema whose check is exponential at the time budget, and keeps serving meanwhile", async () => {
    const { result, health } = await healthDuring(
      json(
        "POST",
        `/api/v1/organizations/${tenantA.id}/plugins`,
        plugin("com.tenant.exponential", {
          settings_schema: EXPONENTIAL_SETTINGS,
          default_settings: { tree: nestedArrays(60) },
        }),
      ),
    );
    expectProblem(result, 400, "validation_failed");
    expect(result.body.errors).toEqual([{ path: "default_settings", message: "could not be checked within 500 ms" }]);
    expect(health.every((status) => status === 200)).toBe(true);
    expect(await client.plugin.count({ where: { pid: "com.tenant.exponential" } })).toBe(0);
  });

  it("lets two tenants use the same $id, and keeps each schema's own rules", async () => {
    const schemaOf = (type: string) => ({
      $id: "https://schemas.example.com/settings",
      type: "object",
      properties: { v: { type } },
    });
    expect(
      (
        await json(
          "POST",
          `/api/v1/organizations/${tenantA.id}/plugins`,
          plugin("com.shared.id", { settings_schema: schemaOf("integer"), default_settings: { v: 1 } }),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await json(
          "POST",
          `/api/v1/organizations/${tenantB.id}/plugins`,
          plugin("com.shared.id", { settings_schema: schemaOf("string"), default_settings: { v: "x" } }),
        )
      ).status,
    ).toBe(201);
    // Each organization's orchestrator is checked against its own plugin's schema.
    const create = (org: string, v: unknown) =>
      json("POST", `/api/v1/organizations/${org}/orchestrators`, {
        name: "bot",
        framework_type: "langgraph",
        mode: "supervisor",
        plugin_settings: { "com.shared.id": { v } },
      });
    expect((await create(tenantA.id, 2)).status).toBe(201);
    expect(expectProblem(await create(tenantA.id, "two"), 400, "validation_failed")).toEqual([
      "plugin_settings.com.shared.id.v",
    ]);
    expect(expectProblem(await create(tenantB.id, 2), 400, "validation_failed")).toEqual([
      "plugin_settings.com.shared.id.v",
    ]);
  });

  it("refuses remote references and other drafts' meta-schemas", async () => {
    for (const settings_schema of [
      { $ref: "http://169.254.169.254/latest/meta-data/schema.json" },
      { $schema: "http://json-schema.org/draft-07/schema#" },
    ]) {
      const paths = expectProblem(
        await json(
          "POST",
          `/api/v1/organizations/${tenantA.id}/plugins`,
          plugin("com.tenant.remote", { settings_schema }),
        ),
        400,
        "validation_failed",
      );
      expect(paths[0]).toMatch(/^settings_schema/);
    }
  });

  it("keeps an organization's plugin files under its own prefix, and system plugins under system/", async () => {
    const register = (path: string, s3_path: string) =>
      json("POST", path, plugin(`com.s3.p${Math.random().toString(36).slice(2, 8)}`, { s3_path }));
    const own = `/api/v1/organizations/${tenantA.id}/plugins`;
    expect((await register(own, `orgs/${tenantA.id}/bundle.zip`)).status).toBe(201);
    for (const s3_path of [
      `orgs/${tenantB.id}/bundle.zip`,
      "system/bundle.zip",
      `orgs/${tenantA.id}/../${tenantB.id}/x`,
      `/orgs/${tenantA.id}/x`,
      `orgs/${tenantA.id}//x`,
      "",
    ]) {
      expect(expectProblem(await register(own, s3_path), 400, "validation_failed"), s3_path).toEqual(["s3_path"]);
    }
    expect((await register("/api/v1/plugins", "system/search/1.0.0.zip")).status).toBe(201);
    expect(expectProblem(await register("/api/v1/plugins", `orgs/${tenantA.id}/x`), 400, "validation_failed")).toEqual([
      "s3_path",
    ]);
  });
});

describe("addresses", () => {
  it.each([
    "https://[::ffff:169.254.169.254]/",
    "https://[::ffff:a9fe:a9fe]/v1",
    "https://localhost./",
    "https://metadata.google.internal./",
    "https://2852039166/",
    "https://0xa9fea9fe/",
    "https://0251.0376.0251.0376/",
    "https://example.com@127.0.0.1/",
    "https://[fe80::1%25eth0]/",
  ])("refuses the LLM base_url %s", async (base_url) => {
    const answer = await json("POST", `/api/v1/organizations/${tenantA.id}/llm-configs`, {
      name: "c",
      provider: "openai_compatible",
      api_key: "sk-test-12345678",
      base_url,
    });
    expect(expectProblem(answer, 400, "validation_failed")).toEqual(["base_url"]);
  });

  it("accepts a public base_url", async () => {
    const answer = await json("POST", `/api/v1/organizations/${tenantA.id}/llm-configs`, {
      name: "c",
      provider: "openai_compatible",
      api_key: "sk-test-12345678",
      base_url: "https://api.example.com/v1",
    });
    expect(answer.status).toBe(201);
  });
});

describe("input before validation", () => {
  const orchestrators = `/api/v1/organizations/${tenantA.id}/orchestrators`;
  const nestedText = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  /** The text of a valid orchestrator body with these members (raw JSON text) added. */
  const orchestratorWith = (members: string) =>
    `{"name":"bot","framework_type":"langgraph","mode":"supervisor",${members}}`;
  /** The field paths of the 400 validation_failed this orchestrator body (raw JSON text) is refused with. */
  const refusedOrchestrator = async (body: string) =>
    expectProblem(await send("POST", orchestrators, body), 400, "validation_failed");

  it("refuses a 20,000-deep array inside config, naming config", async () => {
    expect(await refusedOrchestrator(orchestratorWith(`"config":{"a":${nestedText(20_000)}}`))).toEqual(["config"]);
    // A whole body that deep, and one 64 levels deep inside a field (65 with the body itself).
    await refusedOrchestrator(nestedText(500_000));
    expect(await refusedOrchestrator(orchestratorWith(`"config":{"a":${nestedText(63)}}`))).toEqual(["config"]);
    expect((await send("POST", orchestrators, orchestratorWith(`"config":{"a":${nestedText(62)}}`))).status).toBe(201);
  });

  it("refuses U+0000 in a query value, a path parameter and a body, naming the field", async () => {
    expect(expectProblem(await send("GET", "/api/v1/plugins?pid=%00"), 400, "validation_failed")).toEqual([
      "query.pid",
    ]);
    expect(expectProblem(await send("GET", "/api/v1/platform-settings/a%00b"), 400, "validation_failed")).toEqual([
      "params.key",
    ]);
    expect(await refusedOrchestrator('{"name":"b\\u0000t","framework_type":"langgraph","mode":"supervisor"}')).toEqual([
      "name",
    ]);
    expect(await refusedOrchestrator(orchestratorWith('"config":{"k\\u0000":1}'))).toEqual(["config"]);
  });

  it("refuses lone surrogates and numbers beyond the exact range", async () => {
    expect(await refusedOrchestrator(orchestratorWith('"whoami":"\\ud800"'))).toEqual(["whoami"]);
    expect(await refusedOrchestrator(orchestratorWith('"config":{"seed":12345678901234567890}'))).toEqual([
      "config.seed",
    ]);
    expect(await refusedOrchestrator(orchestratorWith('"config":{"x":1e400}'))).toEqual(["config.x"]);
  });

  it("refuses a list cursor too large to be an id", async () => {
    expect(
      expectProblem(await send("GET", "/api/v1/models?cursor=99999999999999999999"), 400, "validation_failed"),
    ).toEqual(["cursor"]);
  });

  it("applies the same checks to the console's tRPC door", async () => {
    const browser = await consoleSession(app, admin.username);
    const call = async (input: string) => {
      const response = await browser.fetch("/api/trpc/orchestrators.create", {
        method: "POST",
        headers: { origin: app.baseUrl, "content-type": "application/json" },
        body: `{"json":${input}}`,
      });
      const { error } = (await response.json()) as {
        error?: { json: { data: { domainCode: string; errors?: { path: string }[] } } };
      };
      return {
        status: response.status,
        requestId: response.headers.get("x-request-id"),
        domainCode: error?.json.data.domainCode,
        paths: error?.json.data.errors?.map((e) => e.path),
      };
    };
    const base = `"org_id":"${tenantA.id}","name":"bot","framework_type":"langgraph","mode":"supervisor"`;
    expect(await call(`{${base},"config":{"a":${nestedText(100)}}}`)).toMatchObject({
      status: 400,
      domainCode: "validation_failed",
      paths: ["config"],
    });
    expect(await call(`{${base},"whoami":"\\u0000"}`)).toMatchObject({
      status: 400,
      domainCode: "validation_failed",
      paths: ["whoami"],
    });
    expect(await call(`{${base},"config":{"n":9007199254740993}}`)).toMatchObject({
      status: 400,
      domainCode: "validation_failed",
      paths: ["config.n"],
    });
    const deep = await call(`{${base},"config":{"a":${nestedText(20_000)}}}`);
    expect(deep.status).toBeLessThan(500);
    expect(deep.requestId).toBeTruthy();
    expect(await call(`{${base},"config":{"a":"${"x".repeat(1024 * 1024)}"}}`)).toMatchObject({
      status: 413,
      domainCode: "payload_too_large",
    });
  });
});

describe("the whole /api surface", () => {
  it("answers malformed percent-encoding with 400", async () => {
    for (const path of ["/api/v1/roles/%ED%A0%80", "/api/v1/roles/%zz", "/api/v1/users/%C0%AF", "/api/nowhere/%ff"]) {
      expect(expectProblem(await send("GET", path), 400, "validation_failed"), path).toEqual(["path"]);
    }
  });

  it("answers unknown paths with 404, whatever the method", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/nope"],
      ["POST", "/api/v1/nope"],
      ["GET", "/api"],
      ["DELETE", "/api/v1/roles/x/y"],
      ["GET", "/api/v1/%6De"],
      ["PROPFIND", "/api/unknown"],
    ] as const) {
      expectProblem(await send(method, path), 404, "not_found");
    }
  });

  it("answers wrong and unknown methods with 405 and Allow", async () => {
    for (const [method, path, allow] of [
      ["DELETE", "/api/health", "GET, HEAD, OPTIONS"],
      ["TRACE", "/api/v1/me", "GET, HEAD, OPTIONS"],
      ["PROPFIND", "/api/v1/roles", "GET, POST, HEAD, OPTIONS"],
      ["POST", "/api/openapi.json", "GET, HEAD, OPTIONS"],
      ["PUT", "/api/docs", "GET, HEAD, OPTIONS"],
      ["DELETE", "/api/trpc/plugins.list", "GET, POST, HEAD, OPTIONS"],
      ["PATCH", "/api/auth/session", "GET, POST, HEAD, OPTIONS"],
    ] as const) {
      const response = await rawRequest(method, path);
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expect(response.headers["x-request-id"]).toBeTruthy();
      expect((JSON.parse(response.body) as { allowed: string[] }).allowed).toEqual(allow.split(", "));
    }
  });

  it("answers OPTIONS with the methods the path takes", async () => {
    const response = await app.fetch("/api/admin/users/api-keys/some-key/roll", { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("serves a path with a trailing or repeated slash as the path without it, never a bare redirect", async () => {
    const headers = { "x-api-key": key.raw_key };
    const plain = (await (await app.fetch("/api/v1/organizations", { headers })).json()) as { data: unknown[] };
    for (const path of ["/api/v1/organizations/", "/api//v1/organizations", "/api/v1/organizations/?limit=50"]) {
      const response = await app.fetch(path, { headers, redirect: "manual" });
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { data: unknown[] }).data, path).toEqual(plain.data);
    }
    const made = await app.fetch("/api/v1/organizations/", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Made through a trailing slash" }),
      redirect: "manual",
    });
    expect(made.status).toBe(201);
    expectProblem(await send("GET", "/api/v1/nope/"), 404, "not_found");
  });

  it("sends X-Request-Id on every answer, the caller's when it is sane", async () => {
    for (const path of [
      "/api/health",
      "/api/openapi.json",
      "/api/auth/session",
      "/api/trpc/plugins.list",
      "/api/docs",
      "/api/v1/me",
    ]) {
      const response = await app.fetch(path, { headers: { "x-request-id": "trace-42" } });
      expect(response.headers.get("x-request-id"), path).toBe("trace-42");
    }
    const insane = await app.fetch("/api/health", { headers: { "x-request-id": "bad id\twith spaces" } });
    expect(insane.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("is still healthy", async () => {
    expect((await app.fetch("/api/health")).status).toBe(200);
    expect(app.logs()).not.toContain("unhandled error");
  });
});
