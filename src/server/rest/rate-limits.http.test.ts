import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, request, startApp, untilKeyCached } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createSysAdmin, createUser, PASSWORD, seedRoles } from "@/test/fixtures";
import type { RateLimit } from "@/lib/schemas/api-keys";
import { readContext } from "@/server/db/context";

// Rate limits over HTTP, counted in the app process (no REDIS_URL): per key, and failed
// authentications per client address. The app trusts one proxy hop, so each test speaks from an
// address of its own through X-Forwarded-For, as clients behind a load balancer do.

const { client, url } = await testDatabase();
await seedRoles(client);
const METRICS_TOKEN = "metrics-token-0123456789";
const app = await startApp(url, {
  SVC_AUTH_FAILURE_LIMIT: "5",
  SVC_TRUSTED_PROXY_HOPS: "1",
  SVC_METRICS_TOKEN: METRICS_TOKEN,
});
const admin = await createSysAdmin(client);
const cli = systemActor("test");

const keyFor = async (rate_limit: RateLimit | null = null) =>
  (
    await createApiKey(readContext(cli), admin.id, {
      name: "limits",
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
      rate_limit,
    })
  ).raw_key;

let addresses = 0;
/** An address no other test speaks from. */
const newAddress = () => `198.51.100.${++addresses}`;

const me = (key: string, from: string) =>
  app.fetch("/api/v1/me", { headers: { "x-api-key": key, "x-forwarded-for": from } });

/** A console sign-in with a password from `from`: where the app sends the browser next. */
async function signIn(username: string, password: string, from: string): Promise<string> {
  const session = new Browserless(app.baseUrl);
  const { csrfToken } = (await (await session.fetch("/api/auth/csrf")).json()) as { csrfToken: string };
  const response = await session.fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
    body: new URLSearchParams({ username, password, csrfToken }).toString(),
  });
  return response.headers.get("location") ?? "";
}

describe("per-key rate limits", () => {
  it("answer with the RateLimit fields, then 429 with Retry-After once the key's own limit is spent", async () => {
    const key = await keyFor({ requests: 5, window_seconds: 60 });
    const from = newAddress();
    for (let i = 0; i < 5; i++) {
      const response = await me(key, from);
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"key";q=5;w=60');
      expect(response.headers.get("ratelimit")).toMatch(new RegExp(`^"key";r=${4 - i};t=\\d+$`));
    }
    const refused = await me(key, from);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-policy")).toBe('"key";q=5;w=60');
    expect(refused.headers.get("ratelimit")).toMatch(/^"key";r=0;t=\d+$/);
    expect(((await refused.json()) as { code: string }).code).toBe("rate_limited");
    // Another key, from the same address, has its own count.
    expect((await me(await keyFor({ requests: 5, window_seconds: 60 }), from)).status).toBe(200);
  });

  it("count requests racing each other exactly once", async () => {
    const key = await keyFor({ requests: 10, window_seconds: 60 });
    const from = newAddress();
    const statuses = await Promise.all(Array.from({ length: 25 }, () => me(key, from).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it("carry the fields on a key's failed requests too, and never on a session's", async () => {
    const key = await keyFor({ requests: 50, window_seconds: 60 });
    // The key lacks the organization's permission: refused, and counted.
    const refused = await app.fetch("/api/v1/organizations/0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70", {
      headers: { "x-api-key": key },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("ratelimit")).toMatch(/^"key";r=49;t=\d+$/);
    const session = new Browserless(app.baseUrl);
    expect(await session.signIn(admin.username, PASSWORD)).toBe(true);
    const answer = await session.fetch("/api/v1/me");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("ratelimit")).toBeNull();
  });

  it("hold a cached key without a limit of its own to a new default at its very next request", async () => {
    const session = new Browserless(app.baseUrl);
    expect(await session.signIn(admin.username, PASSWORD)).toBe(true);
    const put = (value: RateLimit) =>
      session.fetch("/api/v1/platform-settings/api_keys.default_rate_limit", {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value, value_type: "json" }),
      });
    const key = await keyFor();
    const from = newAddress();
    await untilKeyCached(app, () => me(key, from), METRICS_TOKEN);
    expect((await me(key, from)).headers.get("ratelimit-policy")).toBe('"key";q=1000;w=60');
    try {
      expect((await put({ requests: 500, window_seconds: 30 })).status).toBe(200);
      const next = await me(key, from);
      expect(next.headers.get("ratelimit-policy")).toBe('"key";q=500;w=30');
      expect(((await next.json()) as { key: { rate_limit: RateLimit } }).key.rate_limit).toEqual({
        requests: 500,
        window_seconds: 30,
      });
    } finally {
      expect((await put({ requests: 1000, window_seconds: 60 })).status).toBe(200);
    }
    expect((await me(key, from)).headers.get("ratelimit-policy")).toBe('"key";q=1000;w=60');
  });

  it("apply the platform's api_keys.default_rate_limit to keys without one of their own", async () => {
    const seeded = await client.platformSetting.findUniqueOrThrow({ where: { key: "api_keys.default_rate_limit" } });
    expect(seeded.value).toEqual({ requests: 1000, window_seconds: 60 });
    const plain = await keyFor();
    const first = await me(plain, newAddress());
    expect(first.headers.get("ratelimit-policy")).toBe('"key";q=1000;w=60');
    expect(((await first.json()) as { key: { rate_limit: RateLimit } }).key.rate_limit).toEqual({
      requests: 1000,
      window_seconds: 60,
    });

    await client.platformSetting.update({
      where: { key: "api_keys.default_rate_limit" },
      data: { value: { requests: 3, window_seconds: 30 } },
    });
    try {
      const key = await keyFor();
      const from = newAddress();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await me(key, from)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      // A key's own limit wins over the default.
      const own = await me(await keyFor({ requests: 7, window_seconds: 60 }), from);
      expect(own.headers.get("ratelimit-policy")).toBe('"key";q=7;w=60');
    } finally {
      await client.platformSetting.update({
        where: { key: "api_keys.default_rate_limit" },
        data: { value: seeded.value ?? {} },
      });
    }
  });
});

describe("rate_limit on keys", () => {
  const session = new Browserless(app.baseUrl);

  it("is taken on creation, listed, and refused out of range with nothing stored", async () => {
    expect(await session.signIn(admin.username, PASSWORD)).toBe(true);
    const create = (rate_limit: unknown) =>
      session.fetch("/api/admin/users/api-keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "limited", scopes: ["svc:system:orgs:read"], rate_limit }),
      });
    const created = await create({ requests: 600, window_seconds: 60 });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; rate_limit: RateLimit };
    expect(body.rate_limit).toEqual({ requests: 600, window_seconds: 60 });
    const list = await request<{ data: { id: string; rate_limit: RateLimit | null }[] }>(
      app,
      { session },
      "GET",
      "/api/admin/users/api-keys",
    );
    expect(list.body.data.find((k) => k.id === body.id)?.rate_limit).toEqual({ requests: 600, window_seconds: 60 });

    const before = await client.apiKey.count();
    for (const bad of [
      { requests: 0, window_seconds: 60 },
      { requests: 10_000_001, window_seconds: 60 },
      { requests: 5, window_seconds: 86_401 },
      { requests: 1.5, window_seconds: 60 },
      { requests: 5 },
      { requests: 5, window_seconds: 60, burst: 9 },
      "600/60",
    ]) {
      const refused = await create(bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      const problem = (await refused.json()) as { code: string; errors: { path: string }[] };
      expect(problem.code).toBe("validation_failed");
      expect(problem.errors.every((e) => e.path.startsWith("rate_limit"))).toBe(true);
    }
    expect(await client.apiKey.count()).toBe(before);
  });

  it("is kept to its shape by the database itself", async () => {
    const key = await client.apiKey.findFirstOrThrow();
    await expect(
      client.apiKey.update({ where: { id: key.id }, data: { rate_limit: { requests: "lots", window_seconds: 60 } } }),
    ).rejects.toThrow(/api_keys_rate_limit_check/);
  });
});

describe("failed authentications per client address", () => {
  const bad = "cdk_" + "A".repeat(49); // fails its checksum: refused before any lookup

  it("answer 401 up to SVC_AUTH_FAILURE_LIMIT, then 429 with Retry-After", async () => {
    const from = newAddress();
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await me(bad, from)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const refused = await me(bad, from);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-policy")).toBeNull();
    // A valid key from that address still works: only failures are refused.
    expect((await me(await keyFor(), from)).status).toBe(200);
    // Another address is not held back.
    expect((await me(bad, newAddress())).status).toBe(401);
  });

  it("count unknown, revoked and expired keys alike", async () => {
    const from = newAddress();
    const revoked = await createApiKey(readContext(cli), admin.id, {
      name: "revoked",
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
    });
    await client.apiKey.update({ where: { id: revoked.id }, data: { is_active: false } });
    const expiring = await createApiKey(readContext(cli), admin.id, {
      name: "expired",
      scopes: ["svc:system:orgs:read"],
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    await client.apiKey.update({ where: { id: expiring.id }, data: { expires_at: new Date(Date.now() - 1000) } });
    const unknown = (await keyFor()).slice(0, 20); // malformed
    const codes = [];
    for (const key of [revoked.raw_key, expiring.raw_key, unknown, revoked.raw_key, expiring.raw_key, unknown]) {
      codes.push(((await (await me(key, from)).json()) as { code: string }).code);
    }
    expect(codes).toEqual([
      "api_key_revoked",
      "api_key_expired",
      "invalid_api_key",
      "api_key_revoked",
      "api_key_expired",
      "rate_limited",
    ]);
  });

  it("group an IPv6 client's /64, where it can pick any address", async () => {
    const statuses = [];
    for (let i = 1; i <= 6; i++) statuses.push((await me(bad, `2001:db8:42:7::${i.toString(16)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await me(bad, "2001:db8:42:8::1")).status).toBe(401);
  });

  it("cannot be dodged by sending another X-Forwarded-For through the trusted proxy", async () => {
    const from = newAddress();
    for (let i = 0; i < 5; i++) await me(bad, `10.0.0.${i}, ${from}`);
    // Only the address the trusted proxy appended counts; what the client put in front is its own.
    expect((await me(bad, `10.9.9.9, ${from}`)).status).toBe(429);
  });

  it("include wrong console passwords: past the limit, even the right password is refused", async () => {
    const user = await createUser(client);
    const from = newAddress();
    for (let i = 0; i < 3; i++)
      expect(await signIn(user.username, "wrong-password-1", from)).toContain("error=CredentialsSignin");
    for (let i = 0; i < 2; i++) await me(bad, from);
    expect(await signIn(user.username, "wrong-password-2", from)).toContain("code=rate_limited");
    expect(await signIn(user.username, PASSWORD, from)).toContain("code=rate_limited");
  });

  it("from a stranger's address do not lock the account's owner out of their own", async () => {
    const owner = await createSysAdmin(client);
    const stranger = newAddress();
    for (let i = 0; i < 8; i++) await signIn(owner.username, `guess-${i}`, stranger);
    expect(await signIn(owner.username, PASSWORD, stranger)).toContain("code=rate_limited");
    expect(await signIn(owner.username, PASSWORD, newAddress())).not.toContain("error=");
  });

  it("count an unknown account like a known one, so the answer tells nothing", async () => {
    const from = newAddress();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await signIn("nobody-by-this-name", "whatever", from));
    expect(answers.slice(0, 5).every((location) => location.includes("error=CredentialsSignin"))).toBe(true);
    expect(answers[5]).toContain("code=rate_limited");
  });
});

describe("GET /api/metrics", () => {
  it("wants the metrics token when one is set", async () => {
    expect((await app.fetch("/api/metrics")).status).toBe(401);
    expect(
      (await app.fetch("/api/metrics", { headers: { authorization: "Bearer not-the-token-at-all" } })).status,
    ).toBe(401);
  });

  it("counts requests by route template, method and status, 429s, key outcomes and the pool", async () => {
    const response = await app.fetch("/api/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^svc_http_requests_total\{route="\/api\/v1\/me",method="GET",status="200"\} \d+$/m);
    expect(text).toMatch(
      /^svc_http_requests_total\{route="\/api\/v1\/organizations\/\{org_id\}",method="GET",status="403"\} 1$/m,
    );
    expect(text).toMatch(
      /^svc_http_request_duration_seconds_bucket\{le="0\.1",route="\/api\/v1\/me",method="GET"\} \d+$/m,
    );
    expect(text).toMatch(/^svc_rate_limited_total\{limit="key"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_rate_limited_total\{limit="auth_failures"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_api_key_authentications_total\{outcome="accepted"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_api_key_authentications_total\{outcome="revoked"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_api_key_cache_total\{result="hit"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_db_pool_connections\{state="in_use"\} \d+$/m);
    expect(text).toMatch(/^svc_db_pool_connections\{state="waiting"\} 0$/m);
    expect(text).toMatch(/^svc_bookkeeping_backlog \d+$/m);
    expect(text).toMatch(/^svc_rate_limit_shared 0$/m);
    expect(text).toMatch(/^svc_process_resident_memory_bytes \d+$/m);
    // No key, password or token ever appears in it.
    expect(text).not.toMatch(/cdk_|metrics-token/);
  });

  it("passes Prometheus' own linter, promtool check metrics", async () => {
    // promtool comes with Debian's prometheus package, which .ci/run installs where it is missing.
    const promtool = (exposition: string) => {
      const { error, status, stdout, stderr } = spawnSync("promtool", ["check", "metrics"], {
        input: exposition,
        encoding: "utf8",
      });
      if (error) throw error;
      return { status, problems: `${stdout}${stderr}`.trim() };
    };
    // It does find what it is there for.
    const gaugeNamedLikeCounter = "# HELP x_total Things.\n# TYPE x_total gauge\nx_total 1\n";
    expect(promtool(gaugeNamedLikeCounter).problems).toContain('should not have "_total" suffix');
    // Traffic of its own, so that the app's labelled counters and histograms are in what it lints:
    // a key's answers and its 429, and a key that fails its checksum.
    const key = await keyFor({ requests: 1, window_seconds: 60 });
    const from = newAddress();
    const unknown = "cdk_" + "A".repeat(49);
    expect([(await me(key, from)).status, (await me(key, from)).status, (await me(unknown, from)).status]).toEqual([
      200, 429, 401,
    ]);
    const response = await app.fetch("/api/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const served = await response.text();
    expect(served).toMatch(/^svc_nodejs_active_resources\{type="\w+"\} \d+$/m);
    expect(served).toMatch(
      /^svc_http_request_duration_seconds_bucket\{le="\+Inf",route="\/api\/v1\/me",method="GET"\} \d+$/m,
    );
    expect(served).toMatch(/^svc_rate_limited_total\{limit="key"\} [1-9]\d*$/m);
    expect(served).toMatch(/^svc_api_key_authentications_total\{outcome="invalid"\} [1-9]\d*$/m);
    expect(promtool(served)).toEqual({ status: 0, problems: "" });
  });
});
