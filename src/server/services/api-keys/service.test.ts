import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/api-key-stage";
import { flushKeyUsage, flushLastUsed, pruneKeyUsage, recordKeyUsage } from "@/server/auth/api-key-usage";
import { holds } from "@/server/auth/authorize";
import { ALL_PERMISSIONS, isDangerous, PERMISSIONS, type Permission } from "@/lib/permissions";
import { KeyUsage } from "@/server/db/bookkeeping";
import { DomainError } from "@/server/errors";
import { testDatabase } from "@/test/database";
import {
  createMember,
  createOrg,
  createRole,
  createSysAdmin,
  createUser,
  grant,
  join,
  seedRoles,
} from "@/test/fixtures";
import { KEY_POLICY } from "@/lib/key-policies";
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from "./service";
import { readContext } from "@/server/db/context";

const MAX_LIFETIME_SETTING = KEY_POLICY.maxLifetimeDays;

const { client } = await testDatabase();
await seedRoles(client);
const cli = systemActor("test");
const DAY = 86_400_000;
const HOUR = 3_600_000;

async function refused(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe("createApiKey scope rules", () => {
  it("refuses a scope the owner does not hold with scope_not_held, storing nothing", async () => {
    const { user } = await createMember(client);
    const before = await client.apiKey.count();
    const error = await refused(
      createApiKey(readContext(cli), user.id, {
        name: "x",
        scopes: ["svc:org:read", "svc:org:write"],
        expires_at: null,
      }),
    );
    expect(error.code).toBe("scope_not_held");
    expect(error.details.scopes).toEqual(["svc:org:write"]);
    expect(await client.apiKey.count()).toBe(before);
  });

  it("accepts a scope held in at least one organization", async () => {
    const { user } = await createMember(client);
    const key = await createApiKey(readContext(cli), user.id, {
      name: "x",
      scopes: ["svc:conversations:write"],
      expires_at: null,
    });
    expect(key.scopes).toEqual(["svc:conversations:write"]);
  });

  it("refuses unknown scopes before anything else, storing nothing", async () => {
    const admin = await createSysAdmin(client);
    const before = await client.apiKey.count();
    const error = await refused(
      createApiKey(readContext(cli), admin.id, { name: "x", scopes: ["svc:org:read", "svc:root"], expires_at: null }),
    );
    expect(error.code).toBe("unknown_scope");
    expect(error.details.errors).toEqual([{ path: "scopes.1", message: "svc:root is not a known permission" }]);
    expect(await client.apiKey.count()).toBe(before);
  });

  it("enforces api_keys.max_lifetime_days when it is set", async () => {
    const admin = await createSysAdmin(client);
    await client.platformSetting.create({ data: { key: MAX_LIFETIME_SETTING, value: 30, value_type: "integer" } });
    try {
      for (const expires_at of [null, new Date(Date.now() + 31 * DAY).toISOString()]) {
        const error = await refused(
          createApiKey(readContext(cli), admin.id, { name: "x", scopes: ["svc:org:read"], expires_at }),
        );
        expect(error.code).toBe("policy_violation");
        expect(error.details.setting).toBe(MAX_LIFETIME_SETTING);
      }
      const ok = await createApiKey(readContext(cli), admin.id, {
        name: "x",
        scopes: ["svc:org:read"],
        expires_at: new Date(Date.now() + 29 * DAY).toISOString(),
      });
      expect(ok.expires_at).not.toBeNull();
    } finally {
      await client.platformSetting.delete({ where: { key: MAX_LIFETIME_SETTING } });
    }
  });
});

describe("listApiKeys", () => {
  it("filters by status and keeps other users' keys from a non-sys_admin", async () => {
    const { user } = await createMember(client);
    const a = await createApiKey(readContext(cli), user.id, { name: "a", scopes: ["svc:org:read"], expires_at: null });
    const b = await createApiKey(readContext(cli), user.id, { name: "b", scopes: ["svc:org:read"], expires_at: null });
    await revokeApiKey(readContext(cli), a.id);
    const actor = await authenticateApiKey(b.raw_key);
    expect((await listApiKeys(readContext(actor), { limit: 50, active: true })).data.map((k) => k.id)).toEqual([b.id]);
    expect((await listApiKeys(readContext(actor), { limit: 50, active: false })).data.map((k) => k.id)).toEqual([a.id]);
    const other = await createUser(client);
    expect((await refused(listApiKeys(readContext(actor), { limit: 50, user_id: other.id }))).code).toBe("forbidden");
  });
});

/** Three keys of a new member's. */
async function threeKeys() {
  const { user } = await createMember(client);
  return Promise.all(
    [1, 2, 3].map(() =>
      createApiKey(readContext(cli), user.id, { name: "u", scopes: ["svc:org:read"], expires_at: null }),
    ),
  );
}

const rowsOf = (keys: { id: string }[]) => client.apiKey.findMany({ where: { id: { in: keys.map((k) => k.id) } } });

describe("usage", () => {
  it("is counted in memory and written once per key per flush, adding up across flushes, without touching updated_at", async () => {
    const keys = await threeKeys();
    const before = await rowsOf(keys);
    await flushKeyUsage(); // what earlier tests left pending
    const statuses = [200, 201, 404, 401, 403, 429, 500, 503];
    for (let i = 0; i < 20; i++)
      for (const key of keys) recordKeyUsage(key.id, statuses[i % statuses.length] as number, "192.0.2.1", "agent/1");
    expect(await flushKeyUsage()).toBe(3);
    expect(await flushKeyUsage()).toBe(0);
    for (const key of keys) recordKeyUsage(key.id, 200, "2001:db8::7", "agent/2");
    expect(await flushKeyUsage()).toBe(3);
    for (const key of keys) {
      const rows = await client.apiKeyUsage.findMany({ where: { key_id: key.id } });
      const counts = Object.fromEntries(rows.map((r) => [r.outcome, Number(r.count)]));
      expect(counts).toEqual({ "2xx": 6 + 1, "4xx": 3, "401": 3, "403": 2, "429": 2, "5xx": 4 });
    }
    const after = await rowsOf(keys);
    for (const row of after) {
      expect(row).toMatchObject({ last_used_ip: "2001:db8::7", last_user_agent: "agent/2" });
      expect(row.updated_at).toEqual(before.find((b) => b.id === row.id)?.updated_at);
    }
  });

  it("counts each request in the hour it was made, when one flush spans an hour's end", async () => {
    const { user } = await createMember(client);
    const key = await createApiKey(readContext(cli), user.id, {
      name: "hours",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    const usage = new KeyUsage();
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
    usage.record(key.id, 200, "192.0.2.1", "agent/1", hourStart + HOUR - 1);
    usage.record(key.id, 200, "192.0.2.1", "agent/1", hourStart + HOUR - 1);
    usage.record(key.id, 401, "192.0.2.1", "agent/1", hourStart + HOUR - 1);
    usage.record(key.id, 200, "192.0.2.2", "agent/2", hourStart + HOUR);
    expect(await usage.flush()).toBe(1);
    const rows = await client.apiKeyUsage.findMany({
      where: { key_id: key.id },
      orderBy: [{ hour: "asc" }, { outcome: "asc" }],
    });
    expect(rows.map((r) => [r.hour.getTime(), r.outcome, Number(r.count)])).toEqual([
      [hourStart, "2xx", 2],
      [hourStart, "401", 1],
      [hourStart + HOUR, "2xx", 1],
    ]);
    expect(await client.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({
      last_used_ip: "192.0.2.2",
      last_user_agent: "agent/2",
    });
  });

  it("prunes buckets older than 90 days", async () => {
    const { user } = await createMember(client);
    const key = await createApiKey(readContext(cli), user.id, {
      name: "old",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    await client.apiKeyUsage.create({
      data: { key_id: key.id, hour: new Date(Date.now() - 91 * DAY), outcome: "2xx", count: 1 },
    });
    await client.apiKeyUsage.create({
      data: { key_id: key.id, hour: new Date(Date.now() - 89 * DAY), outcome: "2xx", count: 1 },
    });
    await client.apiKeyUsageTotal.create({ data: { hour: new Date(Date.now() - 91 * DAY), outcome: "5xx", count: 1 } });
    await pruneKeyUsage();
    const left = await client.apiKeyUsage.findMany({ where: { key_id: key.id } });
    expect(left.map((r) => r.hour.getTime())).toEqual([expect.any(Number)]);
    expect(left[0]!.hour.getTime()).toBeGreaterThan(Date.now() - 90 * DAY);
    expect(await client.apiKeyUsageTotal.count({ where: { hour: { lt: new Date(Date.now() - 90 * DAY) } } })).toBe(0);
  });
});

describe("last_used_at", () => {
  it("is written at most once per key per minute, in one batch, without touching updated_at", async () => {
    const keys = await threeKeys();
    const before = await rowsOf(keys);
    await flushLastUsed(); // what earlier tests left pending
    for (let i = 0; i < 20; i++) for (const key of keys) await authenticateApiKey(key.raw_key);
    expect(await flushLastUsed()).toBe(3);
    for (let i = 0; i < 20; i++) for (const key of keys) await authenticateApiKey(key.raw_key);
    expect(await flushLastUsed()).toBe(0);
    const after = await rowsOf(keys);
    for (const row of after) {
      expect(row.last_used_at).not.toBeNull();
      expect(row.updated_at).toEqual(before.find((b) => b.id === row.id)?.updated_at);
    }
  });
});

describe("no privilege escalation (property)", () => {
  it("no created key carries a permission its creator did not hold, unless the creator is a sys_admin", async () => {
    const orgs = await Promise.all([1, 2].map(() => createOrg(client)));
    const arbitraryRole = fc.record({
      scope: fc.constantFrom<"system" | "org">("system", "org"),
      permissions: fc.subarray(ALL_PERMISSIONS, { minLength: 1, maxLength: 6 }),
    });
    const arbitraryGrant = fc.record({ role: arbitraryRole, org: fc.option(fc.constantFrom(0, 1), { nil: null }) });
    const scenario = fc.record({
      grants: fc.array(arbitraryGrant, { maxLength: 4 }),
      memberOf: fc.subarray([0, 1]),
      requested: fc.subarray(ALL_PERMISSIONS, { minLength: 1, maxLength: 8 }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, async ({ grants, memberOf, requested }) => {
        const user = await createUser(client);
        for (const i of memberOf) await join(client, user.id, orgs[i]!.id);
        for (const g of grants) {
          const role = await createRole(client, g.role.scope, g.role.permissions);
          await grant(client, user.id, role.id, g.role.scope === "org" && g.org !== null ? orgs[g.org]!.id : null);
        }
        // The oracle reads the scenario itself, not the authorization code under test: a role granted
        // globally (a system role, or an org role given no organization) counts everywhere; an org
        // role granted in an organization counts there for org permissions while the user is a member.
        const sysAdmin = grants.some(
          (g) => g.role.scope === "system" && g.role.permissions.includes("svc:system:admin"),
        );
        const heldAnywhere = (p: Permission) =>
          grants.some((g) => {
            if (!g.role.permissions.includes(p)) return false;
            if (g.role.scope === "system" || g.org === null) return true;
            return memberOf.includes(g.org) && PERMISSIONS[p].scope === "org";
          });
        const allowed = sysAdmin || requested.every(heldAnywhere);
        const result = await createApiKey(readContext(cli), user.id, {
          name: "p",
          scopes: requested,
          expires_at: null,
        }).then(
          (key) => key,
          (e: unknown) => e as DomainError,
        );
        if (!allowed) {
          expect(result).toBeInstanceOf(DomainError);
          expect((result as DomainError).code).toBe("scope_not_held");
          return;
        }
        expect(result).not.toBeInstanceOf(DomainError);
        const actor = await authenticateApiKey((result as { raw_key: string }).raw_key);
        const orgIds = [undefined, ...orgs.map((o) => o.id)];
        for (const permission of ALL_PERMISSIONS as Permission[]) {
          for (const orgId of orgIds) {
            if (!holds(actor, permission, orgId)) continue;
            expect(isDangerous(permission)).toBe(false);
            expect(requested).toContain(permission);
            if (!sysAdmin) expect(heldAnywhere(permission)).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

// A second roll of a key in its grace gave a successor that copied the grace's
// shortened expiry, and so died with it.
describe("rolling a key again during its grace", () => {
  it("gives the new successor the expiry from before the first roll, not the grace's end", async () => {
    const admin = await createSysAdmin(client);
    const expires = new Date(Date.now() + 90 * DAY).toISOString();
    const original = await createApiKey(readContext(cli), admin.id, {
      name: "ci",
      scopes: ["svc:org:read"],
      expires_at: expires,
    });
    const first = await rollApiKey(readContext(cli), original.id, { grace_period_seconds: 3_600 });
    expect(first.expires_at?.toISOString()).toBe(expires);
    const second = await rollApiKey(readContext(cli), original.id, { grace_period_seconds: 60 });
    expect(second.expires_at?.toISOString()).toBe(expires);
    // The old key's expiry only ever gets shorter: now the second grace's end.
    const old = await client.apiKey.findUniqueOrThrow({ where: { id: original.id } });
    expect(old.expires_at!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    // A successor rolled in turn hands the same expiry on.
    expect((await rollApiKey(readContext(cli), first.id, { grace_period_seconds: 0 })).expires_at?.toISOString()).toBe(
      expires,
    );
  });

  it("keeps a key that never expired never expiring, however often it is rolled", async () => {
    const admin = await createSysAdmin(client);
    const original = await createApiKey(readContext(cli), admin.id, {
      name: "ci",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    await rollApiKey(readContext(cli), original.id, { grace_period_seconds: HOUR / 1000 });
    expect((await rollApiKey(readContext(cli), original.id, { grace_period_seconds: 60 })).expires_at).toBeNull();
    // Once its grace has ended, it is no longer usable and cannot be rolled at all.
    await client.apiKey.update({ where: { id: original.id }, data: { expires_at: new Date(Date.now() - 1000) } });
    expect((await refused(rollApiKey(readContext(cli), original.id, { grace_period_seconds: 60 }))).code).toBe(
      "conflict",
    );
  });
});
