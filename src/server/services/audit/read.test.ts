import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ListAuditEventsQuery } from "@/lib/schemas/audit";
import { cli, refusal } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { listAuditEvents } from "./read";
import { readContext } from "@/server/db/context";

// The trail's list: newest first by when events occurred (an event's id is made as its row is
// written, its time when its transaction began, so the two orders can differ), paged by cursor
// without losing or repeating an event, whichever filter applies, ties in time included.

const { client } = await testDatabase();
const org = await client.organization.create({ data: { name: `audit-list-${process.pid}` } });
const actorId = (await client.user.create({ data: { username: `audit-list-${process.pid}` } })).id;

const base = Date.parse("2026-03-01T12:00:00Z");
// 12 events over 6 instants (two at each), ids in no particular order of time.
const events = Array.from({ length: 12 }, (_, i) => ({
  id: randomUUID(),
  occurred_at: new Date(base + Math.floor(i / 2) * 60_000),
  action: i % 3 === 0 ? "updateOrganization" : "createApiKey",
  actor_user_id: i % 2 === 0 ? actorId : null,
  actor_auth: "session",
  target_id: i < 6 ? "target-a" : "target-b",
  org_id: i % 4 === 0 ? org.id : null,
  outcome: "success",
}));
await client.auditEvent.createMany({ data: events });
const newestFirst = [...events].sort(
  (x, y) => y.occurred_at.getTime() - x.occurred_at.getTime() || (y.id < x.id ? -1 : 1),
);

/** Every page of the list, two events a page. */
async function all(query: Partial<ListAuditEventsQuery>, orgId?: string) {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await listAuditEvents(readContext(cli), { limit: 2, ...query, ...(cursor ? { cursor } : {}) }, orgId);
    ids.push(...page.data.map((e) => e.id));
    if (!page.next_cursor) return ids;
    cursor = page.next_cursor;
  }
  throw new Error("the list did not end");
}

const expected = (keep: (e: (typeof events)[number]) => boolean) => newestFirst.filter(keep).map((e) => e.id);

describe("the audit trail's list", () => {
  it("pages through every event once, newest first, ties in time ordered by id", async () => {
    expect(await all({ target_id: "target-a" })).toEqual(expected((e) => e.target_id === "target-a"));
    expect(await all({ action: "createApiKey" })).toEqual(expected((e) => e.action === "createApiKey"));
    expect(await all({ actor_user_id: actorId })).toEqual(expected((e) => e.actor_user_id === actorId));
    expect(await all({}, org.id)).toEqual(expected((e) => e.org_id === org.id));
  });

  it("filters by the actor's username, whatever its case, and by no one for a name nobody has", async () => {
    const username = `AUDIT-LIST-${process.pid}`;
    expect(await all({ actor_username: username })).toEqual(expected((e) => e.actor_user_id === actorId));
    expect(await all({ actor_username: `nobody-${process.pid}` })).toEqual([]);
  });

  it("names the actor and the target as they are now, a deleted one's too", async () => {
    const gone = await client.user.create({ data: { username: `audit-gone-${process.pid}`, is_deleted: true } });
    const at = new Date(base - 3_600_000);
    await client.auditEvent.createMany({
      data: [
        {
          occurred_at: at,
          action: "updateOrganization",
          actor_user_id: gone.id,
          actor_auth: "session",
          target_type: "organization",
          target_id: org.id,
          outcome: "success",
        },
        {
          occurred_at: at,
          action: "addMember",
          actor_user_id: null,
          actor_auth: "cli",
          target_type: "member",
          target_id: gone.id,
          outcome: "success",
        },
        {
          occurred_at: at,
          action: "putPlatformSetting",
          actor_user_id: null,
          actor_auth: "cli",
          target_type: "platform_setting",
          target_id: "x.y",
          outcome: "success",
        },
      ],
    });
    const page = await listAuditEvents(readContext(cli), { limit: 10, until: new Date(base).toISOString() });
    const byAction = Object.fromEntries(page.data.map((e) => [e.action, e]));
    expect(byAction.updateOrganization?.actor.username).toBe(gone.username);
    expect(byAction.updateOrganization?.target).toEqual({ type: "organization", id: org.id, name: org.name });
    expect(byAction.addMember?.target.name).toBe(gone.username);
    // A setting is known by its key: it has no other name.
    expect(byAction.putPlatformSetting?.target).toEqual({ type: "platform_setting", id: "x.y", name: null });
  });

  it("pages through a time range, since inclusive and until exclusive", async () => {
    const since = new Date(base + 60_000).toISOString();
    const until = new Date(base + 4 * 60_000).toISOString();
    const inRange = (e: (typeof events)[number]) =>
      e.occurred_at.getTime() >= base + 60_000 && e.occurred_at.getTime() < base + 4 * 60_000;
    expect(await all({ since, until, target_id: "target-a" })).toEqual(
      expected((e) => inRange(e) && e.target_id === "target-a"),
    );
    expect(await all({ since, until, action: "createApiKey" })).toEqual(
      expected((e) => inRange(e) && e.action === "createApiKey"),
    );
  });

  it("ends the list at a cursor whose event retention removed, and refuses one it never gave", async () => {
    const first = await listAuditEvents(readContext(cli), { limit: 2, target_id: "target-b" });
    // Retention removes the events older than a moment: the cursor's and all after it in the list.
    const cursorEvent = events.find((e) => e.id === first.data[1]?.id);
    await client.auditEvent.deleteMany({ where: { occurred_at: { lte: cursorEvent?.occurred_at } } });
    const next = await listAuditEvents(readContext(cli), {
      limit: 2,
      target_id: "target-b",
      cursor: first.next_cursor as string,
    });
    expect(next).toEqual({ data: [], next_cursor: null });
    const forged = Buffer.from(JSON.stringify("not an id")).toString("base64url");
    expect((await refusal(listAuditEvents(readContext(cli), { limit: 2, cursor: forged }))).code).toBe(
      "validation_failed",
    );
  });
});
