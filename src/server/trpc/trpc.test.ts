import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as routePOST } from "@/app/api/trpc/[trpc]/route";
import { currentSessionActor } from "@/server/session";
import { systemActor } from "@/server/auth/actor";
import { isPermission } from "@/lib/permissions";
import { createApiKey } from "@/server/services/api-keys/service";
import { KEY_POLICY } from "@/lib/key-policies";
import { createMember, createUserWith } from "@/test/fixtures";
import { callerAs, consoleOperations, consoleTestbed, domainOf, failure } from "@/test/trpc";
import { isSameOrigin } from "@/server/auth/same-origin";
import { handleTRPCRequest } from "./http";
import { appRouter, createCaller } from "./root";
import { readContext } from "@/server/db/context";

// The console's tRPC layer against this file's own PostgreSQL database: procedures called
// in-process with real session actors, and the HTTP endpoint with real Requests.

// The route reads the Auth.js session, which only exists inside Next's request scope. Here it must
// not be read at all: a cross-site mutation is refused before.
vi.mock("@/server/session", () => ({
  currentSessionActor: vi.fn(async () => {
    throw new Error("the session must not be read");
  }),
}));

const { client, admin, adminActor, asAdmin } = await consoleTestbed();

const { user: member } = await createMember(client);
// Holds the key permissions through a custom system role, but is not a sys_admin.
const keyReader = await createUserWith(client, ["svc:system:api_keys:read", "svc:system:api_keys:write"]);

const inAYear = () => new Date(Date.now() + 365 * 86_400_000).toISOString();

describe("authorization", () => {
  it("has a procedure for every operation the console calls, each declaring a known permission", () => {
    const procedures = Object.keys(appRouter._def.procedures);
    expect(procedures.sort()).toEqual(consoleOperations.map(({ path }) => path).sort());
    for (const { path, operation } of consoleOperations) {
      const access = operation.access;
      expect(
        typeof access === "object" ? isPermission(access.permission) : ["authenticated", "session"].includes(access),
        `${path} declares its access`,
      ).toBe(true);
    }
  });

  it("answers UNAUTHORIZED without a session", async () => {
    const error = await failure(createCaller({ actor: null }).apiKeys.list({}));
    expect(error.code).toBe("UNAUTHORIZED");
    expect(domainOf(error).code).toBe("unauthenticated");
  });

  it.each([
    ["an organization member", () => member.id],
    ["a user holding the key permissions without being a sys_admin", () => keyReader.id],
  ])("refuses %s every procedure with FORBIDDEN", async (_label, userId) => {
    const caller = await callerAs(userId());
    const calls = [
      () => caller.apiKeys.list({}),
      () => caller.apiKeys.policy(),
      () => caller.apiKeys.create({ name: "x", scopes: ["svc:org:read"], expires_at: inAYear() }),
      () => caller.apiKeys.revoke({ key_id: "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b" }),
      () => caller.users.list({ q: "a" }),
    ];
    for (const call of calls) {
      const error = await failure(call());
      expect(error.code).toBe("FORBIDDEN");
      expect(domainOf(error).details.required_permission).toBe("svc:system:admin");
    }
    expect(await client.apiKey.count({ where: { user_id: userId() } })).toBe(0);
  });
});

describe("apiKeys", () => {
  it("creates a key for the signed-in admin, lists it, and revokes it", async () => {
    const created = await asAdmin.apiKeys.create({
      name: "console",
      scopes: ["svc:system:api_keys:read", "svc:system:users:write"],
      expires_at: inAYear(),
    });
    expect(created.raw_key).toMatch(/^cdk_/);
    expect(created.effective_scopes).toEqual(["svc:system:api_keys:read"]);
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: created.id } })).user_id).toBe(admin.id);

    const listed = await asAdmin.apiKeys.list({ limit: 10 });
    expect(listed.data.map((k) => k.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.raw_key);

    const revoked = await asAdmin.apiKeys.revoke({ key_id: created.id });
    expect(revoked.is_active).toBe(false);
    expect((await asAdmin.apiKeys.list({ active: "true" })).data.map((k) => k.id)).not.toContain(created.id);
    expect((await asAdmin.apiKeys.list({ active: "false" })).data.map((k) => k.id)).toContain(created.id);
  });

  it("pages through the list with the cursor TanStack's infinite queries send", async () => {
    for (const name of ["page-1", "page-2", "page-3"])
      await asAdmin.apiKeys.create({ name, scopes: ["svc:org:read"], expires_at: null });
    const first = await asAdmin.apiKeys.list({ limit: 2 });
    expect(first.next_cursor).not.toBeNull();
    const next = { limit: 2, cursor: first.next_cursor ?? undefined, direction: "forward" };
    const second = await asAdmin.apiKeys.list(next);
    expect(second.data.map((k) => k.id)).not.toEqual(expect.arrayContaining(first.data.map((k) => k.id)));
  });

  it("lets a sys_admin list another user's keys, but only the owner revokes them", async () => {
    const key = await createApiKey(readContext(systemActor("test")), member.id, {
      name: "member key",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    const listed = await asAdmin.apiKeys.list({ user_id: member.id });
    expect(listed.data.map((k) => k.id)).toEqual([key.id]);
    const error = await failure(asAdmin.apiKeys.revoke({ key_id: key.id }));
    expect(error.code).toBe("NOT_FOUND");
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).is_active).toBe(true);
  });

  it("maps invalid input to BAD_REQUEST with an error per field", async () => {
    const error = await failure(asAdmin.apiKeys.create({ name: " ", scopes: [], expires_at: null }));
    expect(error.code).toBe("BAD_REQUEST");
    const domain = domainOf(error);
    expect(domain.code).toBe("validation_failed");
    expect((domain.details.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(["name", "scopes"]);
  });

  it.each([
    ["an unknown scope", { name: "x", scopes: ["svc:nope"], expires_at: null }, "unknown_scope", "scopes.0"],
    [
      "a past expiry",
      { name: "x", scopes: ["svc:org:read"], expires_at: "2001-01-01T00:00:00Z" },
      "validation_failed",
      "expires_at",
    ],
  ])("maps %s from the service to BAD_REQUEST naming the field", async (_label, input, code, path) => {
    const before = await client.apiKey.count();
    const error = await failure(asAdmin.apiKeys.create(input));
    expect(error.code).toBe("BAD_REQUEST");
    expect(domainOf(error).code).toBe(code);
    expect((domainOf(error).details.errors as { path: string }[]).map((e) => e.path)).toEqual([path]);
    expect(await client.apiKey.count()).toBe(before);
  });

  it("answers NOT_FOUND for an unknown key", async () => {
    expect((await failure(asAdmin.apiKeys.revoke({ key_id: "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b" }))).code).toBe(
      "NOT_FOUND",
    );
  });

  describe("with a maximum key lifetime", () => {
    const MAX_LIFETIME_SETTING = KEY_POLICY.maxLifetimeDays;
    afterEach(async () => {
      await client.platformSetting.deleteMany({ where: { key: MAX_LIFETIME_SETTING } });
    });

    it("tells the dialog the policy and refuses a key without expiry", async () => {
      expect(await asAdmin.apiKeys.policy()).toEqual({ max_lifetime_days: null, require_expiry: false });
      await client.platformSetting.create({
        data: { key: MAX_LIFETIME_SETTING, value: 30, value_type: "integer", category: "api_keys" },
      });
      expect(await asAdmin.apiKeys.policy()).toEqual({ max_lifetime_days: 30, require_expiry: false });
      const error = await failure(
        asAdmin.apiKeys.create({ name: "forever", scopes: ["svc:org:read"], expires_at: null }),
      );
      expect(error.code).toBe("UNPROCESSABLE_CONTENT");
      expect(domainOf(error)).toMatchObject({ code: "policy_violation", details: { setting: MAX_LIFETIME_SETTING } });
    });
  });
});

describe("the HTTP endpoint", () => {
  const BASE = "http://console.test/api/trpc";
  const createBody = JSON.stringify({ json: { name: "via http", scopes: ["svc:org:read"], expires_at: null } });
  const post = (path: string, headers: Record<string, string>, body = createBody) =>
    new Request(`${BASE}/${path}`, {
      method: "POST",
      headers: { host: "console.test", "content-type": "application/json", ...headers },
      body,
    });

  it.each([
    ["an Origin of another site", { origin: "https://evil.example" }],
    ["Sec-Fetch-Site cross-site", { origin: "http://console.test", "sec-fetch-site": "cross-site" }],
    ["neither Origin nor Sec-Fetch-Site", {}],
  ])("refuses a mutation with %s, before reading any session", async (_label, headers) => {
    const before = await client.apiKey.count();
    const response = await routePOST(post("apiKeys.create", headers));
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { json: { message: string; data: Record<string, unknown> } } };
    expect(body.error.json.data).toMatchObject({ code: "FORBIDDEN", domainCode: "forbidden", httpStatus: 403 });
    expect(body.error.json.message).toMatch(/cross-site/i);
    expect(await client.apiKey.count()).toBe(before);
    expect(currentSessionActor).not.toHaveBeenCalled();
  });

  it("accepts a same-site mutation and never lets the answer be cached", async () => {
    const response = await handleTRPCRequest(
      post("apiKeys.create", { origin: "http://console.test", "sec-fetch-site": "same-origin" }),
      async () => adminActor,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { result: { data: { json: { raw_key: string } } } };
    expect(body.result.data.json.raw_key).toMatch(/^cdk_/);
  });

  it("exposes the domain code and field errors, and no stack trace", async () => {
    const response = await handleTRPCRequest(
      post(
        "apiKeys.create",
        { origin: "http://console.test" },
        JSON.stringify({ json: { name: "", scopes: ["svc:org:read"], surprise: 1 } }),
      ),
      async () => adminActor,
    );
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toMatch(/stack|at .*\.ts:\d+/);
    const { error } = JSON.parse(text) as { error: { json: { data: Record<string, unknown> } } };
    expect(error.json.data).toMatchObject({
      code: "BAD_REQUEST",
      httpStatus: 400,
      domainCode: "validation_failed",
      errors: [
        { path: "name", message: "must not be empty" },
        { path: "surprise", message: "is not a known field" },
      ],
    });
  });

  it("refuses a body over 1 MiB with 413, having read no more of it than that", async () => {
    const before = await client.apiKey.count();
    const name = "x".repeat(2 * 1024 * 1024);
    let sent = 0;
    // Streamed without a Content-Length, as a client that lies about its size would send it.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = new TextEncoder().encode(
          sent === 0 ? `{"json":{"name":"${name.slice(0, 64 * 1024)}` : name.slice(0, 64 * 1024),
        );
        sent += chunk.byteLength;
        if (sent > 4 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await handleTRPCRequest(
      new Request(`${BASE}/apiKeys.create`, {
        method: "POST",
        headers: { host: "console.test", "content-type": "application/json", origin: "http://console.test" },
        body,
        duplex: "half",
      } as RequestInit),
      async () => adminActor,
    );
    expect(response.status).toBe(413);
    const { error } = (await response.json()) as { error: { json: { data: Record<string, unknown> } } };
    expect(error.json.data).toMatchObject({ domainCode: "payload_too_large", httpStatus: 413 });
    expect(sent).toBeLessThan(2 * 1024 * 1024);
    expect(await client.apiKey.count()).toBe(before);
  });

  it("serves queries over GET without an Origin", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { limit: 1 } }));
    const response = await handleTRPCRequest(
      new Request(`${BASE}/apiKeys.list?input=${input}`, { headers: { host: "console.test" } }),
      async () => adminActor,
    );
    expect(response.status).toBe(200);
  });

  it("tells same-site requests from the rest", () => {
    const request = (headers: Record<string, string>) =>
      new Request(BASE, { method: "POST", headers: { host: "console.test", ...headers } });
    expect(isSameOrigin(request({ origin: "http://console.test" }))).toBe(true);
    expect(isSameOrigin(request({ "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(isSameOrigin(request({ origin: "http://console.test", "sec-fetch-site": "same-site" }))).toBe(false);
    expect(isSameOrigin(request({ origin: "http://console.test.evil.example" }))).toBe(false);
    expect(isSameOrigin(request({ origin: "null" }))).toBe(false);
    expect(isSameOrigin(request({ origin: "https://proxy.example", "x-forwarded-host": "proxy.example" }))).toBe(true);
  });
});
