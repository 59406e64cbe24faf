import { forgetSubscribers } from "@/server/services/webhooks/outbox";
import { afterEach, describe, expect, it } from "vitest";
import { KEY_POLICY, type KeyPolicySetting } from "@/lib/key-policies";
import { IDLE_REVOKE_ACTION } from "@/lib/audit-actions";
import { putOrgSetting, putPlatformSetting } from "@/server/services/settings/service";
import { createServiceAccount } from "@/server/services/service-accounts/service";
import {
  createServiceAccountKey,
  rollServiceAccountKey,
  updateServiceAccountKey,
} from "@/server/services/service-accounts/keys";
import { cli, refusal, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, createSysAdmin, roleId, seedRoles } from "@/test/fixtures";
import { IDLE_REVOKER, revokeIdleKeys } from "./revocation";
import { createApiKey, revokeApiKey, rollApiKey, updateApiKey } from "./service";
import { readContext } from "@/server/db/context";

// Key policies (settings api_keys.*): each one broken (422 policy_violation naming the setting,
// nothing stored) and kept, on create, roll and update; an organization tightening them for its
// service accounts' keys and unable to loosen them; idle keys revoked as the clock moves.

const { client } = await testDatabase();
await seedRoles(client);

const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();
let n = 0;

type RateLimit = { requests: number; window_seconds: number };

async function setPlatform(key: KeyPolicySetting, value: number | boolean | RateLimit | null) {
  await putPlatformSetting(readContext(cli), key, {
    value,
    value_type: typeof value === "boolean" ? "boolean" : typeof value === "object" && value ? "json" : "integer",
    description: null,
    overridable: false,
    category: "api_keys",
  });
}

afterEach(async () => {
  await client.platformSetting.deleteMany({ where: { key: { startsWith: "api_keys." } } });
  await client.organizationSetting.deleteMany({ where: { key: { startsWith: "api_keys." } } });
});

const key = (ownerId: string, expires_at: string | null) =>
  createApiKey(readContext(cli), ownerId, { name: `k${++n}`, scopes: ["svc:org:read"], expires_at });

async function violation(promise: Promise<unknown>, setting: KeyPolicySetting) {
  const error = await refusal(promise);
  expect(error.code).toBe("policy_violation");
  expect(error.details.setting).toBe(setting);
}

/** A service account of a new organization, with org_member there. */
async function serviceAccount() {
  const org = await createOrg(client);
  const account = await createServiceAccount(readContext(cli), org.id, {
    username: `robot-${process.pid}-${++n}`,
    display_name: null,
    role_ids: [await roleId(client, "org_member")],
  });
  return { org, account };
}

describe("key policies", () => {
  // Any org admin could give a key 10,000,000 requests a second.
  it("api_keys.max_rate_limit: above it (per second), a key is refused on create, roll and change but by a sys_admin", async () => {
    const { org, account } = await serviceAccount();
    const admin = await sessionActor(client, (await createOrgAdmin(client, org.id)).id);
    const body = (rate_limit: RateLimit | null) => ({
      name: `k${++n}`,
      scopes: ["svc:org:read"],
      expires_at: null,
      rate_limit,
      allowed_org_ids: null,
      allowed_cidrs: null,
    });
    const create = (actor: typeof admin | typeof cli, rate_limit: RateLimit | null) =>
      createServiceAccountKey(readContext(actor), org.id, account.id, body(rate_limit));
    const huge = { requests: 10_000_000, window_seconds: 1 };
    const before = await client.apiKey.count();
    // The default, 100,000 a minute, compared per second: 1,667 a second is above it, 1,666 is not.
    await violation(create(admin, huge), KEY_POLICY.maxRateLimit);
    await violation(create(admin, { requests: 1_667, window_seconds: 1 }), KEY_POLICY.maxRateLimit);
    expect(await client.apiKey.count()).toBe(before);
    const within = await create(admin, { requests: 100_000, window_seconds: 60 });
    expect((await create(admin, { requests: 1_666, window_seconds: 1 })).rate_limit).toEqual({
      requests: 1_666,
      window_seconds: 1,
    });
    expect((await create(admin, null)).rate_limit).toBeNull();
    await violation(
      updateServiceAccountKey(readContext(admin), org.id, account.id, within.id, { rate_limit: huge }),
      KEY_POLICY.maxRateLimit,
    );
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: within.id } })).rate_limit).toEqual(within.rate_limit);

    // A sys_admin may go above it; the org admin can then neither roll that key nor change it.
    const big = await create(cli, huge);
    await violation(
      rollServiceAccountKey(readContext(admin), org.id, account.id, big.id, { grace_period_seconds: 0 }),
      KEY_POLICY.maxRateLimit,
    );
    await violation(
      updateServiceAccountKey(readContext(admin), org.id, account.id, big.id, { name: "x" }),
      KEY_POLICY.maxRateLimit,
    );
    expect(
      (await updateServiceAccountKey(readContext(admin), org.id, account.id, big.id, { rate_limit: null })).rate_limit,
    ).toBeNull();

    // The platform lowers it; the organization may tighten it further, never loosen it.
    await setPlatform(KEY_POLICY.maxRateLimit, { requests: 10, window_seconds: 1 });
    await violation(create(admin, { requests: 11, window_seconds: 1 }), KEY_POLICY.maxRateLimit);
    await putOrgSetting(readContext(cli), org.id, KEY_POLICY.maxRateLimit, {
      value: { requests: 60, window_seconds: 60 },
      overridable: false,
    });
    await violation(create(admin, { requests: 2, window_seconds: 1 }), KEY_POLICY.maxRateLimit);
    expect((await create(admin, { requests: 60, window_seconds: 60 })).is_active).toBe(true);
    await violation(
      putOrgSetting(readContext(cli), org.id, KEY_POLICY.maxRateLimit, {
        value: { requests: 20, window_seconds: 1 },
        overridable: false,
      }),
      KEY_POLICY.maxRateLimit,
    );
    // A value that is not a rate limit is refused.
    for (const value of [1000, { requests: 0, window_seconds: 60 }, { requests: 5 }, null])
      expect((await refusal(setPlatform(KEY_POLICY.maxRateLimit, value as RateLimit))).code).toBe("validation_failed");
  });

  it("api_keys.require_expiry: a key without expiry is refused, one with is issued", async () => {
    const admin = await createSysAdmin(client);
    await setPlatform(KEY_POLICY.requireExpiry, true);
    const before = await client.apiKey.count();
    await violation(key(admin.id, null), KEY_POLICY.requireExpiry);
    expect(await client.apiKey.count()).toBe(before);
    expect((await key(admin.id, inDays(400))).expires_at).not.toBeNull();
  });

  it("api_keys.max_lifetime_days: on create, roll and update", async () => {
    const admin = await createSysAdmin(client);
    const longLived = await key(admin.id, inDays(60));
    const forever = await key(admin.id, null);
    await setPlatform(KEY_POLICY.maxLifetimeDays, 30);
    await violation(key(admin.id, inDays(31)), KEY_POLICY.maxLifetimeDays);
    await violation(key(admin.id, null), KEY_POLICY.maxLifetimeDays);
    const within = await key(admin.id, inDays(29));
    // Keys made before the policy: neither rolled into a key that breaks it, nor changed.
    await violation(
      rollApiKey(readContext(cli), longLived.id, { grace_period_seconds: 0 }),
      KEY_POLICY.maxLifetimeDays,
    );
    await violation(updateApiKey(readContext(cli), forever.id, { name: "renamed" }), KEY_POLICY.maxLifetimeDays);
    expect((await client.apiKey.findUniqueOrThrow({ where: { id: forever.id } })).name).toBe(forever.name);
    expect(await client.apiKey.count({ where: { user_id: admin.id } })).toBe(3);
    // A key within it rolls and changes as usual; a revoked one may be renamed.
    expect((await rollApiKey(readContext(cli), within.id, { grace_period_seconds: 60 })).expires_at).toEqual(
      within.expires_at,
    );
    expect((await updateApiKey(readContext(cli), within.id, { name: "ok" })).name).toBe("ok");
    await revokeApiKey(readContext(cli), forever.id);
    expect((await updateApiKey(readContext(cli), forever.id, { name: "old" })).name).toBe("old");
  });

  it("api_keys.max_per_user: active keys per user, a rolled key replacing its old one", async () => {
    const admin = await createSysAdmin(client);
    await setPlatform(KEY_POLICY.maxPerUser, 2);
    const first = await key(admin.id, null);
    await key(admin.id, null);
    await violation(key(admin.id, null), KEY_POLICY.maxPerUser);
    // Rolling keeps the count (the old key, in its grace period, is not counted against its successor).
    const rolled = await rollApiKey(readContext(cli), first.id, { grace_period_seconds: 3600 });
    await revokeApiKey(readContext(cli), first.id);
    await violation(key(admin.id, null), KEY_POLICY.maxPerUser);
    await revokeApiKey(readContext(cli), rolled.id);
    expect((await key(admin.id, null)).is_active).toBe(true);
    // Concurrent creations cannot each take the last place.
    await revokeApiKey(
      readContext(cli),
      (await client.apiKey.findFirstOrThrow({ where: { user_id: admin.id, is_active: true } })).id,
    );
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => key(admin.id, null)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await client.apiKey.count({ where: { user_id: admin.id, is_active: true } })).toBe(2);
  });

  it("an organization tightens them for its service accounts' keys, never a person's", async () => {
    const admin = await createSysAdmin(client);
    const { org, account } = await serviceAccount();
    await setPlatform(KEY_POLICY.maxLifetimeDays, 90);
    await putOrgSetting(readContext(cli), org.id, KEY_POLICY.maxLifetimeDays, { value: 10, overridable: false });
    await putOrgSetting(readContext(cli), org.id, KEY_POLICY.requireExpiry, { value: true, overridable: false });
    await violation(key(account.id, inDays(20)), KEY_POLICY.maxLifetimeDays);
    expect((await key(account.id, inDays(9))).is_active).toBe(true);
    // The platform's value still holds for a person's key.
    expect((await key(admin.id, inDays(20))).is_active).toBe(true);
    await putOrgSetting(readContext(cli), org.id, KEY_POLICY.maxPerUser, { value: 1, overridable: false });
    await violation(key(account.id, inDays(5)), KEY_POLICY.maxPerUser);
  });

  it("an organization cannot loosen the platform's value", async () => {
    const { org, account } = await serviceAccount();
    await setPlatform(KEY_POLICY.maxLifetimeDays, 30);
    await setPlatform(KEY_POLICY.requireExpiry, true);
    for (const [setting, value] of [
      [KEY_POLICY.maxLifetimeDays, 60],
      [KEY_POLICY.maxLifetimeDays, null],
      [KEY_POLICY.requireExpiry, false],
      [KEY_POLICY.maxPerUser, 101],
    ] as const) {
      const error = await refusal(putOrgSetting(readContext(cli), org.id, setting, { value, overridable: false }));
      expect(error, `${setting}=${String(value)}`).toMatchObject({ code: "policy_violation", details: { setting } });
    }
    expect(await client.organizationSetting.count({ where: { org_id: org.id } })).toBe(0);
    // A looser value written before the platform tightened counts for nothing.
    await client.platformSetting.update({ where: { key: KEY_POLICY.maxLifetimeDays }, data: { value: 90 } });
    await putOrgSetting(readContext(cli), org.id, KEY_POLICY.maxLifetimeDays, { value: 60, overridable: false });
    await client.platformSetting.update({ where: { key: KEY_POLICY.maxLifetimeDays }, data: { value: 30 } });
    await violation(key(account.id, inDays(45)), KEY_POLICY.maxLifetimeDays);
    // Values of the wrong type are refused outright.
    expect(
      (
        await refusal(
          putOrgSetting(readContext(cli), org.id, KEY_POLICY.maxLifetimeDays, { value: "7", overridable: false }),
        )
      ).code,
    ).toBe("validation_failed");
  });
});

describe("idle revocation", () => {
  it("revokes keys unused for api_keys.idle_revoke_days as the clock moves, one audit event each", async () => {
    const admin = await createSysAdmin(client);
    const { org, account } = await serviceAccount();
    const unused = await key(admin.id, null);
    const used = await key(admin.id, null);
    const robot = await key(account.id, null);
    const now = Date.now();
    await client.apiKey.update({ where: { id: used.id }, data: { last_used_at: new Date(now + 20 * DAY) } });
    // Keys of the tests before this one are idle too: only these three are looked at.
    const mine = [unused.id, used.id, robot.id];
    const revokeIdle = async (days: number) =>
      (await revokeIdleKeys(readContext(IDLE_REVOKER), { now: new Date(now + days * DAY) })).revoked
        .filter((id) => mine.includes(id))
        .sort();

    expect(await revokeIdleKeys(readContext(IDLE_REVOKER), { now: new Date(now + 40 * DAY) })).toEqual({ revoked: [] });
    // A platform endpoint that wants the job's event: it gets one message per key, naming the key.
    await client.webhookEndpoint.create({
      data: { url: "https://hooks.example/idle", event_types: ["api_key.idle_revoked"], secret_encrypted: "x" },
    });
    forgetSubscribers();
    await setPlatform(KEY_POLICY.idleRevokeDays, 30);
    expect(await revokeIdle(29)).toEqual([]);
    // 31 days on: the unused key and the service account's go; the one used on day 20 stays.
    expect(await revokeIdle(31)).toEqual([unused.id, robot.id].sort());
    const states = await client.apiKey.findMany({ where: { id: { in: [unused.id, used.id, robot.id] } } });
    expect(Object.fromEntries(states.map((k) => [k.id, k.is_active]))).toEqual({
      [unused.id]: false,
      [used.id]: true,
      [robot.id]: false,
    });
    const events = await client.auditEvent.findMany({ where: { action: IDLE_REVOKE_ACTION, target_id: { in: mine } } });
    expect(events.map((e) => e.target_id).sort()).toEqual([unused.id, robot.id].sort());
    expect(events.find((e) => e.target_id === robot.id)?.org_id).toBe(org.id);
    const messages = await client.webhookMessage.findMany({ where: { event_type: "api_key.idle_revoked" } });
    const named = messages.map((m) => (m.payload as { data: { api_key: { id: string } } }).data.api_key.id);
    expect(named.filter((id) => mine.includes(id)).sort()).toEqual([unused.id, robot.id].sort());
    expect(messages.find((m) => named.includes(robot.id) && m.org_id === org.id)).toBeDefined();
    const payloads = JSON.stringify(messages.map((m) => m.payload));
    expect(payloads).not.toContain("key_hash");
    expect(payloads).not.toContain(unused.raw_key);
    // A second run finds nothing more to do.
    expect(await revokeIdle(32)).toEqual([]);
    expect(await client.auditEvent.count({ where: { action: IDLE_REVOKE_ACTION, target_id: { in: mine } } })).toBe(2);
  });

  it("holds a service account's keys to its organization's shorter period", async () => {
    const admin = await createSysAdmin(client);
    const { org, account } = await serviceAccount();
    await putOrgSetting(readContext(cli), org.id, KEY_POLICY.idleRevokeDays, { value: 5, overridable: false });
    const person = await key(admin.id, null);
    const robot = await key(account.id, null);
    const { revoked } = await revokeIdleKeys(readContext(IDLE_REVOKER), { now: new Date(Date.now() + 6 * DAY) });
    expect(revoked).toContain(robot.id);
    expect(revoked).not.toContain(person.id);
  });
});
