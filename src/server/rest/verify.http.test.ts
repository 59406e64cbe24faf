import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { createApiKey } from "@/server/services/api-keys/service";
import { request, type Caller } from "@/test/app";
import { createOrg, createOrgUser, createUserWith } from "@/test/fixtures";
import { appWithSysAdmin } from "@/test/suite";

// POST /api/v1/api-keys/verify: a platform service (holding svc:system:api_keys:verify) asks about
// a key a caller presented to it. Always 200 for a well-formed request, with a code for each way the
// key would be refused; counted, limited and spent exactly as a request made with the key.

const { client, app, session } = await appWithSysAdmin();
const asAdmin: Caller = { session };
const VERIFY = "/api/v1/api-keys/verify";
const KEYS = "/api/admin/users/api-keys";

// The runtime: a user made for the service, holding the verify permission through a system role.
const runtime = await createUserWith(client, ["svc:system:api_keys:verify"]);
const runtimeKey = await createApiKey(readContext(systemActor("test")), runtime.id, {
  name: "runtime",
  scopes: ["svc:system:api_keys:verify"],
  expires_at: null,
});
const asRuntime: Caller = { key: runtimeKey.raw_key };

const org = await createOrg(client);
const otherOrg = await createOrg(client);
// A member of `org` whose keys the runtime verifies.
const member = await createOrgUser(client, org.id, "org_member");

interface Verified {
  valid: boolean;
  code: string;
  key_id?: string;
  key_prefix?: string;
  owner?: { user_id: string; kind: string; username: string };
  org_ids?: string[];
  permissions?: string[];
  expires_at?: string | null;
  credits?: { remaining: number } | null;
  ratelimit?: { limit: number; remaining: number; reset: string } | null;
  meta?: Record<string, unknown>;
}

const verify = async (body: Record<string, unknown>, as: Caller = asRuntime) => {
  const answer = await request<Verified>(app, as, "POST", VERIFY, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

const memberKey = (extra: Record<string, unknown> = {}) =>
  createApiKey(readContext(systemActor("test")), member.id, {
    name: "presented",
    scopes: ["svc:org:read", "svc:conversations:write"],
    expires_at: null,
    ...extra,
  });

describe("verifying a key", () => {
  it("answers VALID with who the key is, what it may do, its limit, credits and metadata", async () => {
    const key = await memberKey({ credits: { remaining: 10, refill: null, low_at: null }, meta: { plan: "pro" } });
    const answer = await verify({
      key: key.raw_key,
      org_id: org.id,
      permissions: ["svc:conversations:write"],
      client_ip: "203.0.113.9",
    });
    expect(answer).toMatchObject({
      valid: true,
      code: "VALID",
      key_id: key.id,
      key_prefix: key.key_prefix,
      owner: { user_id: member.id, kind: "user", username: member.username },
      org_ids: [org.id],
      expires_at: null,
      credits: { remaining: 9 },
      ratelimit: { limit: 1000, remaining: 999 },
      meta: { plan: "pro" },
    });
    expect(answer.permissions).toEqual(expect.arrayContaining(["svc:org:read", "svc:conversations:write"]));
    expect(answer.permissions).not.toContain("svc:org:members:write");
    expect(Date.parse(answer.ratelimit!.reset)).toBeGreaterThan(Date.now());
    expect(JSON.stringify(answer)).not.toContain(key.raw_key);
  });

  it("says nothing but NOT_FOUND of an unknown, malformed or deleted key", async () => {
    const deleted = await memberKey();
    await client.apiKey.update({ where: { id: deleted.id }, data: { is_deleted: true } });
    const unknown = `cdk_${"A".repeat(49)}`;
    for (const key of [unknown, "not-a-key", "", deleted.raw_key, `${deleted.raw_key.slice(0, -1)}x`]) {
      expect(await verify({ key }), key).toEqual({ valid: false, code: "NOT_FOUND" });
    }
  });

  it("answers REVOKED and EXPIRED with the key's identity", async () => {
    const revoked = await memberKey();
    await client.apiKey.update({ where: { id: revoked.id }, data: { is_active: false } });
    expect(await verify({ key: revoked.raw_key })).toMatchObject({
      valid: false,
      code: "REVOKED",
      key_id: revoked.id,
      owner: { user_id: member.id },
    });
    const expired = await memberKey();
    await client.apiKey.update({ where: { id: expired.id }, data: { expires_at: new Date(Date.now() - 1000) } });
    expect(await verify({ key: expired.raw_key })).toMatchObject({ valid: false, code: "EXPIRED", key_id: expired.id });
  });

  it("answers IP_NOT_ALLOWED outside the key's networks, and without an address to check", async () => {
    const key = await memberKey({ allowed_cidrs: ["203.0.113.0/24"] });
    expect((await verify({ key: key.raw_key, client_ip: "203.0.113.200" })).code).toBe("VALID");
    expect((await verify({ key: key.raw_key, client_ip: "198.51.100.1" })).code).toBe("IP_NOT_ALLOWED");
    expect((await verify({ key: key.raw_key })).code).toBe("IP_NOT_ALLOWED");
  });

  it("answers ORG_NOT_ALLOWED for an organization the key may not act in", async () => {
    const key = await memberKey();
    expect((await verify({ key: key.raw_key, org_id: otherOrg.id })).code).toBe("ORG_NOT_ALLOWED");
    const restricted = await memberKey({ allowed_org_ids: [org.id] });
    expect((await verify({ key: restricted.raw_key, org_id: org.id })).code).toBe("VALID");
  });

  it("answers INSUFFICIENT_PERMISSIONS unless the key holds every permission asked for", async () => {
    const key = await memberKey();
    const asked = { key: key.raw_key, org_id: org.id };
    expect((await verify({ ...asked, permissions: ["svc:org:read", "svc:org:members:write"] })).code).toBe(
      "INSUFFICIENT_PERMISSIONS",
    );
    // Held by the owner, but not among the key's scopes.
    expect((await verify({ ...asked, permissions: ["svc:orchestrators:read"] })).code).toBe("INSUFFICIENT_PERMISSIONS");
    // An organization permission outside any organization is held nowhere.
    expect((await verify({ key: key.raw_key, permissions: ["svc:org:read"] })).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await verify({ ...asked, permissions: ["svc:org:read"] })).code).toBe("VALID");
  });

  it("counts in the key's rate limit as a request with it would: RATE_LIMITED past it", async () => {
    const key = await memberKey({ rate_limit: { requests: 2, window_seconds: 60 } });
    expect((await verify({ key: key.raw_key })).ratelimit).toMatchObject({ limit: 2, remaining: 1 });
    expect((await request(app, { key: key.raw_key }, "GET", "/api/v1/me")).status).toBe(200);
    const limited = await verify({ key: key.raw_key });
    expect(limited).toMatchObject({ valid: false, code: "RATE_LIMITED", ratelimit: { limit: 2, remaining: 0 } });
  });

  it("spends `cost` credits, nothing with cost 0, and answers CREDITS_EXHAUSTED without spending", async () => {
    const key = await memberKey({ credits: { remaining: 5, refill: null, low_at: null } });
    expect((await verify({ key: key.raw_key, cost: 3 })).credits).toEqual({ remaining: 2 });
    expect(await verify({ key: key.raw_key, cost: 0 })).toMatchObject({ code: "VALID", credits: { remaining: 2 } });
    expect(await verify({ key: key.raw_key, cost: 3 })).toMatchObject({
      valid: false,
      code: "CREDITS_EXHAUSTED",
      credits: { remaining: 2 },
    });
    expect((await verify({ key: key.raw_key, cost: 2 })).credits).toEqual({ remaining: 0 });
    expect(await verify({ key: key.raw_key, cost: 0 })).toMatchObject({ code: "CREDITS_EXHAUSTED" });
    // The key itself meets the same empty balance.
    expect((await request(app, { key: key.raw_key }, "GET", "/api/v1/me")).body).toMatchObject({
      code: "credits_exhausted",
    });
  });

  it("counts nothing with cost 0: not the rate limit, not the usage", async () => {
    const key = await memberKey({ rate_limit: { requests: 1, window_seconds: 60 } });
    for (let i = 0; i < 3; i++) expect((await verify({ key: key.raw_key, cost: 0 })).code).toBe("VALID");
    expect((await verify({ key: key.raw_key })).code).toBe("VALID");
    expect((await verify({ key: key.raw_key, cost: 0 })).code).toBe("RATE_LIMITED");
  });

  it("counts verifications in the verified key's usage by the outcome a request would have had", async () => {
    const key = await memberKey({ allowed_cidrs: ["203.0.113.0/24"] });
    await verify({ key: key.raw_key, client_ip: "203.0.113.1" });
    await verify({ key: key.raw_key, client_ip: "198.51.100.1" });
    let usage: { outcome: string; count: number }[] = [];
    for (let i = 0; i < 50 && usage.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      usage = (await request<{ data: typeof usage }>(app, asAdmin, "GET", `${KEYS}/${key.id}/usage`)).body.data;
    }
    expect(usage.map(({ outcome, count }) => [outcome, count]).sort()).toEqual([
      ["2xx", 1],
      ["403", 1],
    ]);
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.last_used_ip).toBe("198.51.100.1");
  });

  it("is for holders of svc:system:api_keys:verify only, and limited per calling key", async () => {
    const key = await memberKey();
    // The presented key itself may not verify.
    const self = await request(app, { key: key.raw_key }, "POST", VERIFY, { key: key.raw_key });
    expect(self.body).toMatchObject({ code: "forbidden", required_permission: "svc:system:api_keys:verify" });
    const limitedCaller = await createApiKey(readContext(systemActor("test")), runtime.id, {
      name: "runtime-limited",
      scopes: ["svc:system:api_keys:verify"],
      expires_at: null,
      rate_limit: { requests: 2, window_seconds: 60 },
    });
    const as = { key: limitedCaller.raw_key };
    for (let i = 0; i < 2; i++) expect((await verify({ key: key.raw_key }, as)).code).toBe("VALID");
    const refused = await request(app, as, "POST", VERIFY, { key: key.raw_key });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "rate_limited" });
  });

  it("refuses a malformed request with 400, verifying nothing", async () => {
    const key = await memberKey({ credits: { remaining: 5, refill: null, low_at: null } });
    for (const body of [
      {},
      { key: 42 },
      { key: "x".repeat(300) },
      { key: key.raw_key, cost: -1 },
      { key: key.raw_key, cost: 1001 },
      { key: key.raw_key, permissions: ["svc:made:up"] },
      { key: key.raw_key, org_id: "not-a-uuid" },
      { key: key.raw_key, client_ip: "300.1.1.1" },
      { key: key.raw_key, extra: true },
    ]) {
      const answer = await request(app, asRuntime, "POST", VERIFY, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ code: "validation_failed" });
    }
    expect((await verify({ key: key.raw_key, cost: 0 })).credits).toEqual({ remaining: 5 });
  });

  it("leaves no audit event for a verification, and never the key in the trail or logs", async () => {
    const key = await memberKey();
    await verify({ key: key.raw_key });
    expect(await client.auditEvent.count({ where: { action: "verifyApiKey", outcome: "success" } })).toBe(0);
    expect(app.logs()).not.toContain(key.raw_key);
  });

  it("verifies a service account's key as one", async () => {
    const account = await client.user.create({
      data: { username: `svc-bot-${Date.now()}`, kind: "service", memberships: { create: { org_id: org.id } } },
    });
    const key = await createApiKey(readContext(systemActor("test")), account.id, {
      name: "bot",
      scopes: [],
      expires_at: null,
    });
    expect((await verify({ key: key.raw_key })).owner).toEqual({
      user_id: account.id,
      kind: "service_account",
      username: account.username,
    });
  });

  it("is answered to a console session of a sys_admin", async () => {
    const key = await memberKey();
    expect((await verify({ key: key.raw_key }, asAdmin)).code).toBe("VALID");
  });
});
