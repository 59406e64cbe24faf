import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { generateKey, isWellFormedKey } from "@/server/auth/api-key-format";
import { type Permission } from "@/lib/permissions";
import type { ApiKey, CreatedApiKey } from "@/lib/schemas/api-keys";
import { revokeLeakedKeys } from "@/server/services/api-keys/revocation";
import { createApiKey, revokeApiKey } from "@/server/services/api-keys/service";
import { appOnOwnDatabase, consoleSession, KEY_PERMISSIONS } from "@/test/suite";
import { createOrg, createRole, createSysAdmin, createUser, grant, join } from "@/test/fixtures";
import { ROUTES } from "./registry";
import { readContext } from "@/server/db/context";

// The key lifecycle over HTTP (roll, restrictions, usage, leaked keys, expiring keys) against the
// production build on this file's own database. The app trusts one proxy hop, so each request says
// where it comes from in X-Forwarded-For, as a client behind a load balancer would.

const { client, app } = await appOnOwnDatabase({ SVC_TRUSTED_PROXY_HOPS: "1" });
const KEYS = "/api/admin/users/api-keys";
const cli = systemActor("test");

const admin = await createSysAdmin(client);
const home = await createOrg(client, "home");
const elsewhere = await createOrg(client, "elsewhere");
await join(client, admin.id, home.id);
await join(client, admin.id, elsewhere.id);
const session = await consoleSession(app, admin.username);

let addresses = 0;
/** An IPv4 address no other test speaks from. */
const newAddress = () => `198.51.100.${++addresses}`;

interface Call {
  key?: string;
  from?: string;
  method?: string;
  body?: unknown;
  agent?: string;
}

async function call(path: string, { key, from = "192.0.2.1", method = "GET", body, agent }: Call = {}) {
  const headers: Record<string, string> = { "x-forwarded-for": from };
  if (key) headers["x-api-key"] = key;
  if (agent) headers["user-agent"] = agent;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await app.fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: (text ? JSON.parse(text) : undefined) as Record<string, unknown>,
  };
}

async function asConsole(method: string, path: string, body?: unknown) {
  const response = await session.fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: (text ? JSON.parse(text) : undefined) as Record<string, unknown>,
  };
}

const keyFor = (
  scopes: Permission[] = ["svc:system:orgs:read"],
  more: Partial<Parameters<typeof createApiKey>[2]> = {},
) => createApiKey(readContext(cli), admin.id, { name: "lifecycle", scopes, expires_at: null, ...more });

const ownKeys = async () => (await asConsole("GET", `${KEYS}?limit=100`)).json.data as ApiKey[];
const listed = async (id: string) => (await ownKeys()).find((k) => k.id === id);

describe("roll", () => {
  it("issues a new key like the old one, shown once, and the old one is refused at once without grace", async () => {
    const old = await keyFor(["svc:system:orgs:read"], {
      rate_limit: { requests: 50, window_seconds: 60 },
      allowed_org_ids: [home.id],
      allowed_cidrs: ["192.0.2.0/24"],
    });
    expect((await call("/api/v1/me", { key: old.raw_key })).status).toBe(200);
    const rolled = await asConsole("POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 0 });
    expect(rolled.status).toBe(201);
    expect(rolled.headers.get("cache-control")).toBe("no-store");
    const fresh = rolled.json as unknown as CreatedApiKey;
    expect(rolled.headers.get("location")).toBe(`${KEYS}/${fresh.id}`);
    expect(fresh.raw_key).not.toBe(old.raw_key);
    expect(fresh).toMatchObject({
      name: old.name,
      scopes: old.scopes,
      rate_limit: old.rate_limit,
      allowed_org_ids: [home.id],
      allowed_cidrs: ["192.0.2.0/24"],
      expires_at: old.expires_at,
    });
    expect(await call("/api/v1/me", { key: old.raw_key })).toMatchObject({
      status: 401,
      json: { code: "api_key_expired" },
    });
    expect((await call("/api/v1/me", { key: fresh.raw_key })).status).toBe(200);
    // The raw key was in that answer only.
    expect(JSON.stringify(await ownKeys())).not.toContain(fresh.raw_key);
  });

  it("keeps the old key working for the grace period, to the second, and refuses it after", async () => {
    const old = await keyFor();
    expect((await call("/api/v1/me", { key: old.raw_key })).status).toBe(200); // cached in the app
    const before = Date.now();
    const rolled = await asConsole("POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 3 });
    const after = Date.now();
    expect(rolled.status).toBe(201);
    const expiresAt = new Date((await listed(old.id))!.expires_at!).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3000);
    expect(expiresAt).toBeLessThanOrEqual(after + 3000);
    // Answered until its expiry (however late this machine gets here), refused from it on: an answer
    // a second past it is remembered here, where the retries of waitFor cannot hide it.
    let refusedAt = 0;
    let acceptedLate = 0;
    await vi.waitFor(
      async () => {
        const answer = await call("/api/v1/me", { key: old.raw_key });
        const at = Date.now();
        if (answer.status === 200 && at >= expiresAt + 1000) acceptedLate = at;
        expect(answer.json).toMatchObject({ code: "api_key_expired" });
        refusedAt = at;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(acceptedLate).toBe(0);
    expect(refusedAt).toBeGreaterThanOrEqual(expiresAt);
    expect((await call("/api/v1/me", { key: (rolled.json as unknown as CreatedApiKey).raw_key })).status).toBe(200);
  });

  it("keeps both keys working during the grace period", async () => {
    const old = await keyFor();
    const rolled = await asConsole("POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 3600 });
    expect(rolled.status).toBe(201);
    expect((await call("/api/v1/me", { key: old.raw_key })).status).toBe(200);
    expect((await call("/api/v1/me", { key: (rolled.json as unknown as CreatedApiKey).raw_key })).status).toBe(200);
  });

  it("never extends an old key's expiry", async () => {
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const old = await keyFor(["svc:system:orgs:read"], { expires_at: soon });
    expect((await asConsole("POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 604_800 })).status).toBe(201);
    expect((await listed(old.id))!.expires_at).toBe(soon);
  });

  it("refuses a revoked key (409), another user's key (404), a grace over 7 days (400), and any API key (403)", async () => {
    const revoked = await keyFor();
    await revokeApiKey(readContext(cli), revoked.id);
    expect(await asConsole("POST", `${KEYS}/${revoked.id}/roll`, { grace_period_seconds: 0 })).toMatchObject({
      status: 409,
      json: { code: "conflict" },
    });
    const other = await createApiKey(readContext(cli), (await createSysAdmin(client)).id, {
      name: "theirs",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    expect(await asConsole("POST", `${KEYS}/${other.id}/roll`, {})).toMatchObject({ status: 404 });
    const mine = await keyFor();
    expect(await asConsole("POST", `${KEYS}/${mine.id}/roll`, { grace_period_seconds: 604_801 })).toMatchObject({
      status: 400,
      json: { code: "validation_failed" },
    });
    const strong = await keyFor(["svc:system:api_keys:write", "svc:system:api_keys:read"]);
    expect(await call(`${KEYS}/${mine.id}/roll`, { key: strong.raw_key, method: "POST", body: {} })).toMatchObject({
      status: 403,
    });
    expect((await call("/api/v1/me", { key: mine.raw_key })).status).toBe(200);
  });
});

describe("restrictions", () => {
  it("are edited by PATCH and reach the key (and /me) at once", async () => {
    const key = await keyFor();
    expect((await call("/api/v1/me", { key: key.raw_key })).json.key).toMatchObject({
      allowed_org_ids: null,
      allowed_cidrs: null,
    });
    const patched = await asConsole("PATCH", `${KEYS}/${key.id}`, {
      name: "renamed",
      rate_limit: { requests: 7, window_seconds: 60 },
      allowed_org_ids: [home.id],
      allowed_cidrs: ["192.0.2.0/24", "2001:db8::/32"],
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      name: "renamed",
      rate_limit: { requests: 7, window_seconds: 60 },
      allowed_org_ids: [home.id],
      allowed_cidrs: ["192.0.2.0/24", "2001:db8::/32"],
      scopes: key.scopes,
    });
    const me = await call("/api/v1/me", { key: key.raw_key });
    expect(me.json.key).toMatchObject({
      rate_limit: { requests: 7, window_seconds: 60 },
      allowed_org_ids: [home.id],
      allowed_cidrs: ["192.0.2.0/24", "2001:db8::/32"],
    });
    expect((me.json.organizations as { id: string }[]).map((o) => o.id)).toEqual([home.id]);
    const cleared = await asConsole("PATCH", `${KEYS}/${key.id}`, {
      allowed_org_ids: null,
      allowed_cidrs: null,
      rate_limit: null,
    });
    expect(cleared.json).toMatchObject({
      allowed_org_ids: null,
      allowed_cidrs: null,
      rate_limit: null,
      name: "renamed",
    });
    expect((await call("/api/v1/me", { key: key.raw_key, from: "203.0.113.50" })).json.key).toMatchObject({
      allowed_org_ids: null,
      allowed_cidrs: null,
    });
  });

  it.each([
    ["an organization the owner is not in", () => ({ allowed_org_ids: [home.id, randomUUID()] }), "allowed_org_ids.1"],
    ["a malformed CIDR", () => ({ allowed_cidrs: ["192.0.2.0/33"] }), "allowed_cidrs.0"],
    ["an address without a prefix", () => ({ allowed_cidrs: ["192.0.2.7"] }), "allowed_cidrs.0"],
    ["an empty list", () => ({ allowed_cidrs: [] }), "allowed_cidrs"],
    ["scopes", () => ({ scopes: ["svc:system:admin"] }), "scopes"],
  ])("refuses %s with 400, changing nothing", async (_label, body, path) => {
    const key = await keyFor();
    const answer = await asConsole("PATCH", `${KEYS}/${key.id}`, body());
    expect(answer.status).toBe(400);
    expect((answer.json.errors as { path: string }[]).map((e) => e.path)).toContain(path);
    expect(await listed(key.id)).toMatchObject({ allowed_org_ids: null, allowed_cidrs: null, scopes: key.scopes });
  });

  it("are offered at creation, checked the same way", async () => {
    const created = await asConsole("POST", KEYS, {
      name: "restricted",
      scopes: ["svc:org:read"],
      allowed_org_ids: [elsewhere.id],
      allowed_cidrs: ["10.0.0.0/8"],
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ allowed_org_ids: [elsewhere.id], allowed_cidrs: ["10.0.0.0/8"] });
    const stranger = await createOrg(client);
    const refused = await asConsole("POST", KEYS, {
      name: "x",
      scopes: ["svc:org:read"],
      allowed_org_ids: [stranger.id],
    });
    expect(refused.status).toBe(400);
  });

  it("refuses another user's key with 404", async () => {
    const other = await createApiKey(readContext(cli), (await createSysAdmin(client)).id, {
      name: "theirs",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    expect((await asConsole("PATCH", `${KEYS}/${other.id}`, { name: "mine now" })).status).toBe(404);
  });
});

describe("allowed_cidrs", () => {
  const cases: [string, string[], string, boolean][] = [
    ["IPv4 inside", ["192.0.2.0/24"], "192.0.2.200", true],
    ["IPv4 outside", ["192.0.2.0/24"], "192.0.3.1", false],
    ["IPv4 single host", ["192.0.2.7/32"], "192.0.2.7", true],
    ["IPv4 next to a single host", ["192.0.2.7/32"], "192.0.2.8", false],
    ["IPv4 everywhere", ["0.0.0.0/0"], "203.0.113.9", true],
    ["IPv4 in the second of two networks", ["10.0.0.0/8", "172.16.0.0/12"], "172.31.255.1", true],
    ["IPv6 inside", ["2001:db8:abcd::/48"], "2001:db8:abcd:12::1", true],
    ["IPv6 outside", ["2001:db8:abcd::/48"], "2001:db8:abce::1", false],
    ["IPv6 client, IPv4 networks only", ["192.0.2.0/24"], "2001:db8::1", false],
    ["IPv4 client, IPv6 networks only", ["2001:db8::/32"], "192.0.2.1", false],
    ["IPv4-mapped IPv6 client inside an IPv4 network", ["192.0.2.0/24"], "::ffff:192.0.2.9", true],
  ];

  it.each(cases)("%s", async (_label, cidrs, from, allowed) => {
    const key = await keyFor(["svc:system:orgs:read"], { allowed_cidrs: cidrs });
    const answer = await call("/api/v1/me", { key: key.raw_key, from });
    if (allowed) expect(answer.status).toBe(200);
    else {
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({ code: "ip_not_allowed", status: 403 });
      expect(answer.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("applies a change made while the key is cached, at once", async () => {
    const key = await keyFor();
    expect((await call("/api/v1/me", { key: key.raw_key, from: "192.0.2.77" })).status).toBe(200);
    await asConsole("PATCH", `${KEYS}/${key.id}`, { allowed_cidrs: ["203.0.113.0/24"] });
    expect((await call("/api/v1/me", { key: key.raw_key, from: "192.0.2.77" })).json).toMatchObject({
      code: "ip_not_allowed",
    });
    expect((await call("/api/v1/me", { key: key.raw_key, from: "203.0.113.77" })).status).toBe(200);
  });
});

describe("allowed_org_ids", () => {
  // The owner is a sys_admin and a member of every organization here: without the restriction the
  // key would reach them all. Restricted to `home`, any other must answer as an organization the
  // owner is not in, on every route under an organization, before anything else of the request is
  // looked at.
  const ids: Record<string, string> = { key: "feature.x" };
  const fill = (path: string, orgId: string) =>
    path.replace(/\{([a-z_]+)\}/g, (_, name: string) => (name === "org_id" ? orgId : (ids[name] ?? randomUUID())));
  const orgRoutes = ROUTES.filter((r) => r.path.includes("{org_id}"));
  const everything = KEY_PERMISSIONS;
  const restricted = keyFor(everything, { allowed_org_ids: [home.id] });
  const unrestricted = keyFor(everything);
  const answer = (reply: Awaited<ReturnType<typeof call>>) => ({ status: reply.status, detail: reply.json?.detail });

  it("covers the organization routes", () => {
    expect(orgRoutes.length).toBeGreaterThan(15);
  });

  it.each(orgRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s refuses another organization at its gate",
    async (_name, route) => {
      // An organization of its own per route: the unrestricted key's request below may change it.
      const target = await createOrg(client);
      await join(client, admin.id, target.id);
      const path = fill(route.path, target.id);
      const request = {
        method: route.method,
        body: route.method === "GET" || route.method === "DELETE" ? undefined : {},
      };
      const access = route.access as { org?: string; list?: boolean };
      const gate =
        access.org && access.list
          ? { status: 403, detail: "You are not a member of this organization." }
          : { status: 404, detail: "No such organization or resource." };
      const refused = await call(path, { key: (await restricted).raw_key, ...request });
      expect(answer(refused)).toEqual(gate);
      expect(refused.text).not.toContain(target.name);
      // The same request with a key that is not restricted gets past the gate (to whatever the route
      // answers next): the refusal above is the restriction's.
      expect(answer(await call(path, { key: (await unrestricted).raw_key, ...request }))).not.toEqual(gate);
    },
  );

  const anyOrgReads = ROUTES.filter(
    (r) => (r.access as { anyOrg?: boolean }).anyOrg && r.method === "GET" && !r.path.includes("{"),
  );

  it("covers the routes open to a permission held in any organization", () => {
    expect(anyOrgReads.length).toBeGreaterThanOrEqual(2);
  });

  it.each(anyOrgReads.map((r) => [r.path] as const))(
    "GET %s counts no grant from an organization outside the key's",
    async (path) => {
      // Held through a role in `elsewhere` only: a key restricted to `home` holds it nowhere.
      const permission = (
        ROUTES.find((r) => r.method === "GET" && r.path === path)?.access as { permission: Permission }
      ).permission;
      const owner = await createUser(client);
      await join(client, owner.id, home.id);
      await join(client, owner.id, elsewhere.id);
      await grant(client, owner.id, (await createRole(client, "org", [permission])).id, elsewhere.id);
      const keyOf = async (allowed: string[] | null) =>
        (
          await createApiKey(readContext(cli), owner.id, {
            name: "any-org",
            scopes: [permission],
            expires_at: null,
            allowed_org_ids: allowed,
          })
        ).raw_key;
      const refused = await call(path, { key: await keyOf([home.id]) });
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({ code: "forbidden", required_permission: permission });
      // Allowed where the grant is (or anywhere): past the access check (a required query may still be missing).
      for (const allowed of [[elsewhere.id], null]) {
        const answer = await call(path, { key: await keyOf(allowed) });
        expect(
          answer.status === 200 || (answer.status === 400 && answer.json.code === "validation_failed"),
          `${answer.status}`,
        ).toBe(true);
      }
    },
  );

  it("leaves the allowed organization and an unrestricted key alone", async () => {
    expect((await call(`/api/v1/organizations/${home.id}`, { key: (await restricted).raw_key })).status).toBe(200);
    expect((await call(`/api/v1/organizations/${elsewhere.id}`, { key: (await unrestricted).raw_key })).status).toBe(
      200,
    );
    expect(
      (await call(`/api/v1/organizations/${elsewhere.id}/members`, { key: (await unrestricted).raw_key })).status,
    ).toBe(200);
  });

  it("lists only the allowed organizations, even to a sys_admin's key", async () => {
    const listed = await call("/api/v1/organizations?limit=100", { key: (await restricted).raw_key });
    expect((listed.json.data as { id: string }[]).map((o) => o.id)).toEqual([home.id]);
    const seen: string[] = [];
    for (let cursor: unknown = undefined, page = 0; page === 0 || cursor; page++) {
      const all = await call(`/api/v1/organizations?limit=100${cursor ? `&cursor=${String(cursor)}` : ""}`, {
        key: (await unrestricted).raw_key,
      });
      seen.push(...(all.json.data as { id: string }[]).map((o) => o.id));
      cursor = all.json.next_cursor;
    }
    expect(seen).toEqual(expect.arrayContaining([home.id, elsewhere.id]));
  });
});

describe("usage", () => {
  it("counts every request of the key by hour and outcome, with the last address and user agent", async () => {
    const key = await keyFor(["svc:system:orgs:read", "svc:org:read"], { allowed_cidrs: ["198.51.100.0/24"] });
    const from = newAddress();
    const made = { "2xx": 0, "4xx": 0, "403": 0 };
    for (let i = 0; i < 5; i++, made["2xx"]++)
      expect((await call("/api/v1/me", { key: key.raw_key, from })).status).toBe(200);
    for (let i = 0; i < 3; i++, made["4xx"]++)
      expect((await call(`/api/v1/organizations/${randomUUID()}`, { key: key.raw_key, from })).status).toBe(404);
    expect((await call(`/api/v1/organizations/${home.id}/members`, { key: key.raw_key, from })).status).toBe(403);
    made["403"]++;
    expect((await call("/api/v1/me", { key: key.raw_key, from: "203.0.113.1" })).status).toBe(403);
    made["403"]++;
    const last = newAddress();
    expect((await call("/api/v1/me", { key: key.raw_key, from: last, agent: "scanner/1.0" })).status).toBe(200);
    made["2xx"]++;
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    await vi.waitFor(
      async () => {
        const usage = await asConsole("GET", `${KEYS}/${key.id}/usage`);
        expect(usage.status).toBe(200);
        const counts = Object.fromEntries(
          (usage.json.data as { hour: string; outcome: string; count: number }[]).map((b) => [b.outcome, b.count]),
        );
        expect(counts).toEqual(made);
        for (const bucket of usage.json.data as { hour: string }[]) expect(bucket.hour).toBe(hour);
      },
      { timeout: 5_000, interval: 100 },
    );
    await vi.waitFor(
      async () => expect(await listed(key.id)).toMatchObject({ last_used_ip: last, last_user_agent: "scanner/1.0" }),
      { timeout: 5_000, interval: 100 },
    );
    // One row per hour and outcome, however many requests.
    expect(await client.apiKeyUsage.count({ where: { key_id: key.id } })).toBe(3);
  });

  it("counts the refusals of a revoked key as 401", async () => {
    const key = await keyFor();
    await revokeApiKey(readContext(cli), key.id);
    for (let i = 0; i < 2; i++)
      expect((await call("/api/v1/me", { key: key.raw_key, from: newAddress() })).status).toBe(401);
    await vi.waitFor(
      async () => {
        expect((await asConsole("GET", `${KEYS}/${key.id}/usage`)).json.data).toEqual([
          expect.objectContaining({ outcome: "401", count: 2 }),
        ]);
      },
      { timeout: 5_000, interval: 100 },
    );
  });

  it("answers a range, and refuses a reversed or too long one", async () => {
    const key = await keyFor();
    await client.apiKeyUsage.create({
      data: { key_id: key.id, hour: new Date("2026-01-10T05:00:00Z"), outcome: "429", count: 4 },
    });
    const inRange = await asConsole("GET", `${KEYS}/${key.id}/usage?from=2026-01-10T00:00:00Z&to=2026-01-11T00:00:00Z`);
    expect(inRange.json.data).toEqual([{ hour: "2026-01-10T05:00:00.000Z", outcome: "429", count: 4 }]);
    expect(
      (await asConsole("GET", `${KEYS}/${key.id}/usage?from=2026-01-11T00:00:00Z&to=2026-01-10T00:00:00Z`)).status,
    ).toBe(400);
    expect(
      (await asConsole("GET", `${KEYS}/${key.id}/usage?from=2025-01-01T00:00:00Z&to=2026-01-10T00:00:00Z`)).status,
    ).toBe(400);
    expect((await asConsole("GET", `${KEYS}/${randomUUID()}/usage`)).status).toBe(404);
  });
});

describe("POST /api/v1/api-keys/revoke-leaked", () => {
  const LEAKED = "/api/v1/api-keys/revoke-leaked";

  it("revokes each usable key at once and answers the same whatever it was sent", async () => {
    const usable = await keyFor();
    const revoked = await keyFor();
    await revokeApiKey(readContext(cli), revoked.id);
    const bystander = await keyFor();
    expect((await call("/api/v1/me", { key: usable.raw_key })).status).toBe(200); // cached in the app
    const unknownButWellFormed = generateKey().raw; // its checksum holds: it is looked up, and found nowhere
    expect(isWellFormedKey(unknownButWellFormed)).toBe(true);
    const from = newAddress();
    const answer = await call(LEAKED, {
      method: "POST",
      from,
      body: { keys: [usable.raw_key, revoked.raw_key, "not a key", unknownButWellFormed] },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ received: 4 });
    // Four keys of which none was usable get the same answer: the reporter learns nothing of them.
    const nothing = await call(LEAKED, {
      method: "POST",
      from,
      body: { keys: [revoked.raw_key, unknownButWellFormed, generateKey().raw, "d"] },
    });
    expect(nothing.status).toBe(answer.status);
    expect(nothing.text).toBe(answer.text);
    expect(nothing.headers.get("content-type")).toBe(answer.headers.get("content-type"));
    expect(await call("/api/v1/me", { key: usable.raw_key })).toMatchObject({
      status: 401,
      json: { code: "api_key_revoked" },
    });
    expect((await call("/api/v1/me", { key: bystander.raw_key })).status).toBe(200);
    // Written as the leaked-key report, whoever (nobody) sent it.
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: usable.id } })).toMatchObject({
      is_active: false,
      updated_by: "system:leaked-key-report",
    });
    expect(answer.text).not.toContain(usable.key_prefix);
    // Audited: the report as a whole, and the key it ended (never the keys already dead or unknown).
    const events = await client.auditEvent.findMany({
      where: { request_id: answer.headers.get("x-request-id") ?? "" },
    });
    expect(events).toEqual([
      expect.objectContaining({ action: "revokeLeakedApiKeys", actor_auth: "system", ip: from, outcome: "success" }),
    ]);
    const ended = await client.auditEvent.findMany({
      where: { action: "revokeApiKey", target_id: { in: [usable.id, revoked.id, bystander.id] } },
    });
    expect(ended.map((e) => [e.target_id, e.actor_auth])).toEqual([[usable.id, "system"]]);
  });

  it("reaches the app when another process revokes (the NOTIFY path)", async () => {
    const key = await keyFor();
    expect((await call("/api/v1/me", { key: key.raw_key })).status).toBe(200);
    await revokeLeakedKeys(readContext(systemActor("test")), [key.raw_key]);
    await vi.waitFor(async () => expect((await call("/api/v1/me", { key: key.raw_key })).status).toBe(401), {
      timeout: 5_000,
      interval: 50,
    });
  });

  it("refuses a malformed report with 400 and more than 100 keys", async () => {
    expect((await call(LEAKED, { method: "POST", from: newAddress(), body: { keys: "cdk_x" } })).status).toBe(400);
    expect(
      (
        await call(LEAKED, {
          method: "POST",
          from: newAddress(),
          body: { keys: Array.from({ length: 101 }, () => "x") },
        })
      ).status,
    ).toBe(400);
  });

  it("is rate-limited per address, and says so in the RateLimit fields of every answer", async () => {
    const from = newAddress();
    for (let i = 0; i < 10; i++) {
      const answer = await call(LEAKED, { method: "POST", from, body: { keys: ["x"] } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("ratelimit-policy")).toBe('"address";q=10;w=60');
      expect(answer.headers.get("ratelimit")).toMatch(new RegExp(`^"address";r=${9 - i};t=\\d+$`));
    }
    const refused = await call(LEAKED, { method: "POST", from, body: { keys: ["x"] } });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: "rate_limited" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toBe('"address";q=10;w=60');
    expect(refused.headers.get("ratelimit")).toMatch(/^"address";r=0;t=\d+$/);
    expect((await call(LEAKED, { method: "POST", from: newAddress(), body: { keys: ["x"] } })).status).toBe(200);
  });
});

describe("expiring keys", () => {
  it("?expiring_within_days=N keeps the active keys expiring within N days", async () => {
    const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();
    const soon = await keyFor(["svc:org:read"], { expires_at: inDays(2) });
    const later = await keyFor(["svc:org:read"], { expires_at: inDays(10) });
    const revokedSoon = await keyFor(["svc:org:read"], { expires_at: inDays(1) });
    await revokeApiKey(readContext(cli), revokedSoon.id);
    const week = (await asConsole("GET", `${KEYS}?expiring_within_days=7&limit=100`)).json.data as ApiKey[];
    const ids = week.map((k) => k.id);
    expect(ids).toContain(soon.id);
    expect(ids).not.toContain(later.id);
    expect(ids).not.toContain(revokedSoon.id);
    for (const key of week)
      expect(new Date(key.expires_at!).getTime()).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000);
    expect(
      ((await asConsole("GET", `${KEYS}?expiring_within_days=30&limit=100`)).json.data as ApiKey[]).map((k) => k.id),
    ).toContain(later.id);
    expect((await asConsole("GET", `${KEYS}?expiring_within_days=0`)).status).toBe(400);
  });
});
