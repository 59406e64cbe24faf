import { describe, expect, it, vi } from "vitest";
import { request, type Answer, type Caller } from "@/test/app";
import { createOrg, createOrgAdmin, createOrgUser, roleId } from "@/test/fixtures";
import { appWithSysAdmin, consoleSession } from "@/test/suite";
import { startReceiver } from "@/test/webhook-receiver";

// Keys with a budget: each request that passes authentication, networks, rate limit,
// authorization and validation spends one credit; a refused one spends nothing. Refills replace
// the balance at 00:00 UTC; events say when a balance runs low and out, once each.

const { client, app, session } = await appWithSysAdmin({
  SVC_ALLOW_HTTP_LOOPBACK: "1",
  SVC_WEBHOOK_RETRY_SCHEDULE: "1,1,1",
});
const asAdmin: Caller = { session };
const receiver = await startReceiver();
const KEYS = "/api/admin/users/api-keys";

interface Key {
  id: string;
  raw_key: string;
  credits: { remaining: number; refill: unknown; low_at: number | null; next_refill_at: string | null } | null;
  meta: Record<string, unknown>;
}

async function keyWith(body: Record<string, unknown>): Promise<Key> {
  const answer = await request<Key>(app, asAdmin, "POST", KEYS, {
    name: "budgeted",
    scopes: ["svc:system:orgs:read"],
    ...body,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

const remainingOf = async (id: string) =>
  (await request<Key>(app, asAdmin, "GET", `${KEYS}/${id}`)).body.credits?.remaining;
/** A service account's key's balance, read from its keys' list under the organization. */
const accountKeyRemaining = async (keys: string, id: string, as: Caller) =>
  (await request<{ data: Key[] }>(app, as, "GET", keys)).body.data.find((k) => k.id === id)?.credits?.remaining;
const orgs = (raw: string) => request(app, { key: raw }, "GET", "/api/v1/organizations");
const creditsOf = (answer: Answer<unknown>) => answer.headers.get("credits-remaining");

describe("a key's credits", () => {
  it("are spent one a request, announced in Credits-Remaining, then refused with 429 credits_exhausted", async () => {
    const key = await keyWith({ credits: { remaining: 3 } });
    expect(key.credits).toEqual({ remaining: 3, refill: null, low_at: null, next_refill_at: null });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const answer = await orgs(key.raw_key);
      expect(answer.status).toBe(200);
      seen.push(creditsOf(answer));
    }
    expect(seen).toEqual(["2", "1", "0"]);
    const refused = await orgs(key.raw_key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.body).toMatchObject({ code: "credits_exhausted", status: 429 });
    // Without a refill, no moment helps.
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(creditsOf(refused)).toBe("0");
    expect(await remainingOf(key.id)).toBe(0);
  });

  it("are not spent by a key without them, which answers no Credits-Remaining", async () => {
    const key = await keyWith({});
    expect(key.credits).toBeNull();
    const answer = await orgs(key.raw_key);
    expect(answer.status).toBe(200);
    expect(creditsOf(answer)).toBeNull();
  });

  it("are not spent by refused requests: 403, 401, the rate limit's 429, a foreign address, bad input", async () => {
    // Lacking the permission: 403.
    const narrow = await keyWith({ credits: { remaining: 5 } });
    expect((await request(app, { key: narrow.raw_key }, "GET", "/api/v1/users")).status).toBe(403);
    // Bad input on a route it may call: 400.
    expect((await request(app, { key: narrow.raw_key }, "GET", "/api/v1/organizations?limit=0")).status).toBe(400);
    expect(await remainingOf(narrow.id)).toBe(5);

    // Over its rate limit: the second request is a 429 rate_limited.
    const limited = await keyWith({ credits: { remaining: 5 }, rate_limit: { requests: 1, window_seconds: 60 } });
    expect((await orgs(limited.raw_key)).status).toBe(200);
    const overLimit = await orgs(limited.raw_key);
    expect(overLimit.status).toBe(429);
    expect(overLimit.body).toMatchObject({ code: "rate_limited" });
    expect(await remainingOf(limited.id)).toBe(4);

    // From outside its networks: 403 ip_not_allowed.
    const fenced = await keyWith({ credits: { remaining: 5 }, allowed_cidrs: ["203.0.113.0/24"] });
    expect((await orgs(fenced.raw_key)).body).toMatchObject({ code: "ip_not_allowed" });
    expect(await remainingOf(fenced.id)).toBe(5);

    // Revoked: 401.
    const revoked = await keyWith({ credits: { remaining: 5 } });
    expect((await request(app, asAdmin, "DELETE", `${KEYS}/${revoked.id}`)).status).toBe(200);
    expect((await orgs(revoked.raw_key)).status).toBe(401);
    expect(await remainingOf(revoked.id)).toBe(5);
  });

  it("are given back when the operation itself refuses the request (404, 409): only an answered one spends", async () => {
    const key = await keyWith({
      credits: { remaining: 5 },
      scopes: ["svc:system:orgs:read", "svc:system:api_keys:read", "svc:system:models:write"],
    });
    const caller: Caller = { key: key.raw_key };
    const missing = await request(app, caller, "GET", `${KEYS}/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    // The answer says what the balance is with the credit given back.
    expect(creditsOf(missing)).toBe("5");
    // A change the operation refuses (a model already in the catalog) rolls back, and so does its spending.
    const model = { provider: "credits-test", model_id: `model-${crypto.randomUUID()}` };
    expect((await request(app, asAdmin, "POST", "/api/v1/models", model)).status).toBe(201);
    const conflict = await request(app, caller, "POST", "/api/v1/models", model);
    expect(conflict.body).toMatchObject({ code: "conflict" });
    expect(await remainingOf(key.id)).toBe(5);
    expect((await orgs(key.raw_key)).status).toBe(200);
    expect(await remainingOf(key.id)).toBe(4);
  });

  it("lowered to 0 stay 0: what a process held of the old balance does not come back", async () => {
    const key = await keyWith({ credits: { remaining: 1000 } });
    // The first requests make the process hold a block of the balance.
    for (let i = 0; i < 3; i++) expect((await orgs(key.raw_key)).status).toBe(200);
    const lowered = await request<Key>(app, asAdmin, "POST", `${KEYS}/${key.id}/credits`, {
      op: "decrement",
      amount: 10_000,
    });
    expect(lowered.body.credits?.remaining).toBe(0);
    // The block held goes back when the process hears of the change: it must not land on the lowered balance.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await remainingOf(key.id)).toBe(0);
    expect((await orgs(key.raw_key)).body).toMatchObject({ code: "credits_exhausted" });
  });

  it("are replaced, not added to, by a refill at 00:00 UTC, and an empty key says when that is", async () => {
    const key = await keyWith({ credits: { remaining: 1, refill: { amount: 5, interval: "daily" } } });
    const nextMidnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000;
    expect(key.credits?.next_refill_at).toBe(new Date(nextMidnight).toISOString());
    expect((await orgs(key.raw_key)).status).toBe(200);
    const refused = await orgs(key.raw_key);
    expect(refused.body).toMatchObject({ code: "credits_exhausted" });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Math.abs(retryAfter - (nextMidnight - Date.now()) / 1000)).toBeLessThan(5);

    // The clock moved past midnight: the balance is from yesterday's refill.
    await client.$executeRaw`UPDATE api_keys SET credits_refilled_at = credits_refilled_at - interval '1 day', credits_remaining = 2 WHERE id = ${key.id}::uuid`;
    expect(await remainingOf(key.id)).toBe(5);
    const refilled = await orgs(key.raw_key);
    expect(refilled.status).toBe(200);
    // 5, not 2 + 5.
    expect(creditsOf(refilled)).toBe("4");
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.credits_remaining).toBe(4n);
    expect(row.credits_refilled_at?.getTime()).toBe(nextMidnight - 86_400_000);
  });

  it("are set, raised and lowered through POST …/credits, each change audited", async () => {
    const key = await keyWith({ credits: { remaining: 10 } });
    const change = (body: unknown) => request<Key>(app, asAdmin, "POST", `${KEYS}/${key.id}/credits`, body);
    expect((await change({ op: "increment", amount: 5 })).body.credits?.remaining).toBe(15);
    expect((await change({ op: "decrement", amount: 40 })).body.credits?.remaining).toBe(0);
    expect((await orgs(key.raw_key)).status).toBe(429);
    expect((await change({ op: "set", amount: 2 })).body.credits?.remaining).toBe(2);
    expect((await orgs(key.raw_key)).status).toBe(200);
    const unlimited = await change({ op: "set", amount: null });
    expect(unlimited.body.credits).toBeNull();
    const free = await orgs(key.raw_key);
    expect(free.status).toBe(200);
    expect(creditsOf(free)).toBeNull();
    expect((await change({ op: "increment", amount: 1 })).body).toMatchObject({ code: "conflict" });
    for (const bad of [{ op: "increment", amount: null }, { op: "burn", amount: 1 }, { op: "set", amount: -1 }, {}]) {
      expect((await change(bad)).body, JSON.stringify(bad)).toMatchObject({ code: "validation_failed" });
    }
    const events = await client.auditEvent.findMany({
      where: { action: "changeApiKeyCredits", target_id: key.id },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => e.outcome)).toEqual(["success", "success", "success", "success"]);
  });

  it("refuse bad budgets and metadata on create and change, storing nothing", async () => {
    const before = await client.apiKey.count();
    const bad = [
      { credits: { remaining: -1 } },
      { credits: { remaining: 1e13 } },
      { credits: { remaining: 5, refill: { amount: 0, interval: "daily" } } },
      { credits: { remaining: 5, refill: { amount: 5, interval: "weekly" } } },
      { credits: { remaining: 5, refill: { amount: 5, interval: "daily", day: 3 } } },
      { credits: { remaining: 5, refill: { amount: 5, interval: "monthly", day: 32 } } },
      { meta: { blob: "x".repeat(5000) } },
      { meta: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      { meta: { a: { b: { c: { d: 1 } } } } },
      { meta: [1, 2] },
      { meta: "text" },
      { credits: { remaining: 1.5 } },
      { credits: { remaining: "5" } },
    ];
    for (const body of bad) {
      const answer = await request(app, asAdmin, "POST", KEYS, {
        name: "bad",
        scopes: ["svc:system:orgs:read"],
        ...body,
      });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ code: "validation_failed" });
    }
    expect(await client.apiKey.count()).toBe(before);
  });

  it("leave a __proto__ property out of metadata: it never becomes a prototype", async () => {
    const key = await keyWith({ meta: JSON.parse('{"__proto__": {"polluted": true}, "plan": "pro"}') as unknown });
    expect(key.meta).toEqual({ plan: "pro" });
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.meta).toEqual({ plan: "pro" });
    const me = await request<{ key: { meta: Record<string, unknown> } }>(
      app,
      { key: key.raw_key },
      "GET",
      "/api/v1/me",
    );
    expect(Object.getPrototypeOf(me.body.key.meta)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("carry metadata to lists, the key, /api/v1/me, and a PATCH replaces it", async () => {
    const meta = { plan: "pro", limits: { seats: 5, regions: ["eu", "us"] } };
    const key = await keyWith({ meta });
    expect(key.meta).toEqual(meta);
    const listed = await request<{ data: Key[] }>(app, asAdmin, "GET", KEYS);
    expect(listed.body.data.find((k) => k.id === key.id)?.meta).toEqual(meta);
    const me = await request<{ key: { meta: unknown } }>(app, { key: key.raw_key }, "GET", "/api/v1/me");
    expect(me.body.key.meta).toEqual(meta);
    const patched = await request<Key>(app, asAdmin, "PATCH", `${KEYS}/${key.id}`, {
      meta: { plan: "team" },
      credits: { remaining: 7, refill: { amount: 100, interval: "monthly", day: 31 } },
    });
    expect(patched.body.meta).toEqual({ plan: "team" });
    expect(patched.body.credits).toMatchObject({ remaining: 7, refill: { amount: 100, interval: "monthly", day: 31 } });
    // The change reaches the cached key at once.
    const after = await request<{ key: { meta: unknown } }>(app, { key: key.raw_key }, "GET", "/api/v1/me");
    expect(after.body.key.meta).toEqual({ plan: "team" });
    expect(creditsOf(after)).toBe("6");
  });

  it("move to the successor of a rolled key, which the old key spends during its grace", async () => {
    const old = await keyWith({ credits: { remaining: 4 } });
    expect((await orgs(old.raw_key)).status).toBe(200);
    const rolled = await request<Key>(app, asAdmin, "POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 3600 });
    expect(rolled.body.credits?.remaining).toBe(3);
    expect(await remainingOf(old.id)).toBe(3);
    expect(creditsOf(await orgs(old.raw_key))).toBe("2");
    expect(creditsOf(await orgs(rolled.body.raw_key))).toBe("1");
    expect((await orgs(old.raw_key)).status).toBe(200);
    expect((await orgs(rolled.body.raw_key)).body).toMatchObject({ code: "credits_exhausted" });
    expect((await orgs(old.raw_key)).body).toMatchObject({ code: "credits_exhausted" });
    // The balance is the successor's: changing it on the old key is refused.
    const onOld = await request(app, asAdmin, "POST", `${KEYS}/${old.id}/credits`, { op: "set", amount: 9 });
    expect(onOld.body).toMatchObject({ code: "conflict" });
    expect(
      (await request<Key>(app, asAdmin, "POST", `${KEYS}/${rolled.body.id}/credits`, { op: "set", amount: 9 })).body
        .credits?.remaining,
    ).toBe(9);
    expect(creditsOf(await orgs(old.raw_key))).toBe("8");
  });

  it("cannot be spent twice through a rolled key and its successor at once", async () => {
    const old = await keyWith({ credits: { remaining: 10 } });
    const rolled = await request<Key>(app, asAdmin, "POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 3600 });
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => orgs(i % 2 ? old.raw_key : rolled.body.raw_key).then((a) => a.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
  });

  it("are never spent free while the key is rolled under concurrent requests", async () => {
    for (let round = 0; round < 3; round++) {
      const old = await keyWith({ credits: { remaining: 150 } });
      // Requests keep coming through the old key while it is rolled, and a few after.
      let rolling = true;
      const statuses: number[] = [];
      const keepCalling = async () => {
        for (let after = 0; rolling || after < 3; after += rolling ? 0 : 1)
          statuses.push((await orgs(old.raw_key)).status);
      };
      const callers = Array.from({ length: 6 }, keepCalling);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const rolled = await request<Key>(app, asAdmin, "POST", `${KEYS}/${old.id}/roll`, { grace_period_seconds: 3600 });
      rolling = false;
      await Promise.all(callers);
      const answered = statuses.filter((s) => s === 200).length;
      // Every answered request took a credit: what is left and what was answered make 150.
      expect(answered + (await remainingOf(rolled.body.id))!).toBe(150);
      expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    }
  });

  it("of a service account's key are set by the organization's admin and spent by its requests", async () => {
    const org = await createOrg(client);
    const orgAdmin = await createOrgAdmin(client, org.id);
    const asOrgAdmin: Caller = { session: await consoleSession(app, orgAdmin.username) };
    const base = `/api/v1/organizations/${org.id}/service-accounts`;
    const account = await request<{ id: string }>(app, asOrgAdmin, "POST", base, {
      username: `bot-${org.id.slice(0, 8)}`,
      role_ids: [await roleId(client, "org_member")],
    });
    expect(account.status, JSON.stringify(account.body)).toBe(201);
    const keys = `${base}/${account.body.id}/api-keys`;
    const key = await request<Key>(app, asOrgAdmin, "POST", keys, {
      name: "bot-key",
      scopes: ["svc:org:read"],
      credits: { remaining: 1 },
      meta: { team: "support" },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const read = () => request(app, { key: key.body.raw_key }, "GET", `/api/v1/organizations/${org.id}`);
    expect((await read()).status).toBe(200);
    expect((await read()).body).toMatchObject({ code: "credits_exhausted" });
    const raised = await request<Key>(app, asOrgAdmin, "POST", `${keys}/${key.body.id}/credits`, {
      op: "increment",
      amount: 2,
    });
    expect(raised.body.credits?.remaining).toBe(2);
    expect(creditsOf(await read())).toBe("1");
    // A manager who could not issue the key cannot raise its budget either, nor can another tenant.
    const member = await createOrgUser(client, org.id, "org_member");
    const asMember: Caller = { session: await consoleSession(app, member.username) };
    const byMember = await request(app, asMember, "POST", `${keys}/${key.body.id}/credits`, {
      op: "set",
      amount: null,
    });
    expect(byMember.status).toBe(403);
    const stranger = await createOrgAdmin(client, (await createOrg(client)).id);
    const asStranger: Caller = { session: await consoleSession(app, stranger.username) };
    const byStranger = await request(app, asStranger, "POST", `${keys}/${key.body.id}/credits`, {
      op: "set",
      amount: null,
    });
    expect(byStranger.status).toBe(404);
    expect(await accountKeyRemaining(keys, key.body.id, asOrgAdmin)).toBe(1);
  });

  it("send api_key.credits_low and api_key.credits_exhausted once per balance", async () => {
    await request(app, asAdmin, "POST", "/api/v1/webhook-endpoints", {
      url: `${receiver.url}/credits`,
      event_types: ["api_key.credits_low", "api_key.credits_exhausted"],
    });
    const key = await keyWith({ credits: { remaining: 3, low_at: 2 } });
    for (let i = 0; i < 3; i++) expect((await orgs(key.raw_key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await orgs(key.raw_key)).status).toBe(429);
    const ofKey = (type: string) =>
      receiver.ofType(type, (p) => (p.data as { api_key: { id: string } }).api_key.id === key.id);
    await vi.waitFor(() => expect(ofKey("api_key.credits_exhausted")).toHaveLength(1), { timeout: 10_000 });
    expect(ofKey("api_key.credits_low")).toHaveLength(1);
    // A new balance may run low and out again.
    await request(app, asAdmin, "POST", `${KEYS}/${key.id}/credits`, { op: "set", amount: 1 });
    expect((await orgs(key.raw_key)).status).toBe(200);
    expect((await orgs(key.raw_key)).status).toBe(429);
    await vi.waitFor(() => expect(ofKey("api_key.credits_exhausted")).toHaveLength(2), { timeout: 10_000 });
    expect(receiver.received.map((r) => r.body).join()).not.toContain(key.raw_key);
  });
});
