import { describe, expect, it } from "vitest";
import { listAuditEventsQuery } from "@/lib/schemas/audit";
import { KeyUsage } from "@/server/db/bookkeeping";
import { listAuditEvents } from "@/server/services/audit/read";
import { cli } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createUser } from "@/test/fixtures";
import { overview } from "./service";
import { readContext } from "@/server/db/context";

// Each figure of the overview against a database holding exactly what it counts, and beside it what
// it must leave out: deleted organizations and users; revoked, deleted and expired keys; usage and
// refusals older than the week; events past the latest.

const { client } = await testDatabase();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const currentHour = () => Math.floor(Date.now() / HOUR) * HOUR;

// Organizations: 3 free, 2 pro, 1 enterprise, and deleted ones (one of a tier no other has).
for (const [tier, count] of [
  ["free", 3],
  ["pro", 2],
  ["enterprise", 1],
] as const) {
  for (let i = 0; i < count; i++)
    await client.organization.create({ data: { name: `${tier} ${i}`, subscription_tier: tier } });
}
await client.organization.create({ data: { name: "deleted pro", subscription_tier: "pro", is_deleted: true } });
await client.organization.create({ data: { name: "deleted custom", subscription_tier: "custom", is_deleted: true } });

// Users: two, and one deleted (who still appears in the audit trail by name).
const owner = await createUser(client);
const other = await createUser(client);
const gone = await client.user.update({ where: { id: (await createUser(client)).id }, data: { is_deleted: true } });

let keys = 0;
const createKey = (
  data: { expires_at?: Date | null; is_active?: boolean; is_deleted?: boolean; user_id?: string } = {},
) => {
  keys += 1;
  return client.apiKey.create({
    data: {
      user_id: owner.id,
      name: `key ${keys}`,
      key_hash: String(keys).padStart(64, "0"),
      key_prefix: `cdk_${String(keys).padStart(8, "0")}`,
      ...data,
    },
  });
};
const inDays = (days: number) => new Date(Date.now() + days * DAY);

// Usable keys: 2 that never expire, 2 expiring within the week (one an hour before its end), 1 an
// hour after it. Not usable: expired, revoked (with and without an expiry this week), deleted.
await createKey();
await createKey();
await createKey({ expires_at: inDays(1) });
await createKey({ expires_at: inDays(7 - 1 / 24) });
await createKey({ expires_at: inDays(7 + 1 / 24) });
await createKey({ expires_at: inDays(-1 / 24) });
await createKey({ is_active: false });
await createKey({ is_active: false, expires_at: inDays(1) });
await createKey({ is_deleted: true, expires_at: inDays(2) });
await createKey({ is_deleted: true });

// Usage, written by the bookkeeping writer (per key and in total). Twelve keys (usable, never
// expiring), the i-th refused i + 1 times this week across 401, 403 and 429, and let through 20 - i
// times, so that only refusals set their order; the most refused one's refusals all in the week's
// first hour. Refusals and requests older than the week: a hundred of the least refused key's, which
// would put it first.
const refusedKeys = await Promise.all(
  Array.from({ length: 12 }, (_, i) => createKey({ user_id: i % 2 ? other.id : owner.id })),
);
const seededHour = currentHour();
const records: { keyId: string; status: number; outcome: string; hour: number }[] = [];
const record = (keyId: string, status: number, outcome: string, hoursAgo: number, times = 1) => {
  for (let n = 0; n < times; n++) records.push({ keyId, status, outcome, hour: seededHour - hoursAgo * HOUR });
};
refusedKeys.forEach((key, i) => {
  const hoursAgo = i === 11 ? 167 : i * 7;
  for (let n = 0; n <= i; n++) {
    const [status, outcome] = (
      [
        [401, "401"],
        [403, "403"],
        [429, "429"],
      ] as const
    )[n % 3]!;
    record(key.id, status, outcome, hoursAgo);
  }
  record(key.id, 200, "2xx", hoursAgo + 1, 20 - i);
});
record(refusedKeys[0]!.id, 429, "429", 168, 100);
record(refusedKeys[0]!.id, 200, "2xx", 200, 5);
record(refusedKeys[1]!.id, 404, "4xx", 0, 3);
record(refusedKeys[1]!.id, 503, "5xx", 0, 2);
const usage = new KeyUsage();
for (const r of records) usage.record(r.keyId, r.status, "192.0.2.1", "agent/1", r.hour);
expect(await usage.flush()).toBe(refusedKeys.length);

// Audit events: ten, by a user, by the deleted user and by the system in turn, one with its changes.
const actors = [owner, gone, null];
for (let i = 0; i < 10; i++) {
  const actor = actors[i % 3]!;
  await client.auditEvent.create({
    data: {
      actor_user_id: actor?.id ?? null,
      actor_auth: actor ? "session" : "system",
      action: `test.event_${i}`,
      target_type: "organization",
      target_id: `target-${i}`,
      outcome: i === 4 ? "denied" : "success",
      ...(i === 7 ? { changes: { name: { old: "a", new: "b" } } } : {}),
    },
  });
}

/** overview() and the hour it ran in (called again should the hour turn meanwhile: its week moves with it). */
async function overviewNow() {
  for (;;) {
    const hour = currentHour();
    const answer = await overview(readContext(cli));
    if (currentHour() === hour) return { hour, answer };
  }
}

const { hour, answer } = await overviewNow();

describe("overview", () => {
  it("counts the organizations not deleted, by tier", () => {
    expect(answer.organizations_by_tier).toEqual([
      { tier: "enterprise", count: 1 },
      { tier: "free", count: 3 },
      { tier: "pro", count: 2 },
    ]);
  });

  it("counts the users not deleted", () => {
    expect(answer.users).toBe(2);
  });

  it("counts the usable keys, and those of them expiring within 7 days", () => {
    // The twelve usage keys and the five usable ones above.
    expect(answer.active_keys).toBe(12 + 5);
    expect(answer.keys_expiring_this_week).toBe(2);
  });

  it("charts the requests per hour and outcome of the last 7 days, oldest first", () => {
    const since = hour - 167 * HOUR;
    const totals = new Map<string, { hour: number; outcome: string; count: number }>();
    for (const r of records.filter((r) => r.hour >= since)) {
      const bucket = totals.get(`${r.hour} ${r.outcome}`) ?? { hour: r.hour, outcome: r.outcome, count: 0 };
      bucket.count += 1;
      totals.set(`${r.hour} ${r.outcome}`, bucket);
    }
    const expected = [...totals.values()]
      .sort((a, b) => a.hour - b.hour || (a.outcome < b.outcome ? -1 : 1))
      .map((b) => ({ hour: new Date(b.hour), outcome: b.outcome, count: b.count }));
    expect(answer.requests_per_hour).toEqual(expected);
    // The buckets older than the week are left out (they were written).
    expect(answer.requests_per_hour.some((b) => b.hour.getTime() < since)).toBe(false);
    expect(records.some((r) => r.hour < since)).toBe(true);
  });

  it("lists the ten keys refused most this week, most first, with their owners", () => {
    // The hour has not turned since seeding (else the most refused key's hour has left the week).
    const expected = refusedKeys
      .map((key, i) => ({ key, refused: i + 1 }))
      .filter(({ refused }) => hour === seededHour || refused !== 12)
      .reverse()
      .slice(0, 10)
      .map(({ key, refused }) => ({
        id: key.id,
        name: key.name,
        key_prefix: key.key_prefix,
        user_id: key.user_id,
        username: key.user_id === owner.id ? owner.username : other.username,
        refused,
      }));
    expect(answer.most_refused_keys).toEqual(expected);
  });

  it("shows the audit trail's eight latest events, newest first, with their actors' usernames, deleted users' too", async () => {
    // The audit log's order: when it happened, then id (two events can share a millisecond).
    const events = await client.auditEvent.findMany({ orderBy: [{ occurred_at: "desc" }, { id: "desc" }], take: 8 });
    const usernames = new Map([
      [owner.id, owner.username],
      [gone.id, gone.username],
    ]);
    expect(answer.latest_events.map((e) => [e.id, e.actor.username])).toEqual(
      events.map((e) => [e.id, e.actor_user_id ? usernames.get(e.actor_user_id) : null]),
    );
    expect(new Set(answer.latest_events.map((e) => e.actor.username))).toEqual(
      new Set([owner.username, gone.username, null]),
    );
    // Each event as the audit log's first page shows it.
    expect(answer.latest_events).toEqual(
      (await listAuditEvents(readContext(cli), listAuditEventsQuery.parse({ limit: 8 }))).data,
    );
    expect(answer.latest_events.find((e) => e.action === "test.event_7")?.changes).toEqual({
      name: { old: "a", new: "b" },
    });
  });
});
