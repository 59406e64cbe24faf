import { describe, expect, it } from "vitest";
import { startEndpointReceiver } from "@/test/webhook-receiver";
import { auditEventOperations } from "@/server/operations/audit-events";
import { auditedChange } from "@/server/operations/invoke";
import { listAuditEvents } from "@/server/services/audit/read";
import { NO_REQUEST } from "@/server/services/audit/record";
import { testDatabase } from "@/test/database";
import { createOrg, createSysAdmin, seedRoles } from "@/test/fixtures";
import { sessionActor } from "@/test/actors";
import { createWebhookEndpoint } from "./endpoints";
import { subscribers } from "./outbox";
import { readContext } from "@/server/db/context";

// The outbox, in-process: a change's messages and deliveries are written with its audit event, in
// its transaction, only for endpoints that want them, and not at all when it rolls back.

process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const receiver = await startEndpointReceiver();
const { client } = await testDatabase();
await seedRoles(client);
const admin = await sessionActor(client, (await createSysAdmin(client)).id);
const watched = await createOrg(client);
const other = await createOrg(client);
const endpoint = await createWebhookEndpoint(readContext(admin), watched.id, {
  url: `${receiver.url}/outbox`,
  description: null,
  event_types: ["organization.updated", "audit.event"],
  enabled: true,
});

const update = (orgId: string, fail = false) =>
  auditedChange(
    admin,
    NO_REQUEST,
    async ({ db }) => {
      await db.organization.update({ where: { id: orgId }, data: { description: "changed" } });
      if (fail) throw new Error("rolled back");
    },
    () => ({ action: "updateOrganization", target: { type: "organization", id: orgId }, orgId }),
  );

describe("the outbox", () => {
  it("writes a change's messages, with the audit event as their data, and a delivery each", async () => {
    await update(watched.id);
    const messages = await client.webhookMessage.findMany({ orderBy: { event_type: "asc" } });
    expect(messages.map((m) => m.event_type)).toEqual(["audit.event", "organization.updated"]);
    // The list as its answer goes out (moments as ISO strings), which is what a payload holds.
    const [listed] = auditEventOperations.list.response.encode(
      await listAuditEvents(readContext(admin), { limit: 1 }),
    ).data;
    // A target's name is read when the trail is listed; a message carries what the change wrote.
    const { name: _name, ...target } = listed!.target;
    const event = { ...listed!, target };
    for (const message of messages)
      expect(message.payload).toEqual({ type: message.event_type, timestamp: event.occurred_at, data: event });
    const deliveries = await client.webhookDelivery.findMany();
    expect(deliveries.map((d) => d.endpoint_id)).toEqual([endpoint.id, endpoint.id]);
    expect(deliveries.every((d) => d.status === "pending" && d.attempts === 0)).toBe(true);
  });

  it("writes nothing for another organization's change, or for a change rolled back", async () => {
    const before = await client.webhookMessage.count();
    await update(other.id);
    await expect(update(watched.id, true)).rejects.toThrow("rolled back");
    expect(await client.webhookMessage.count()).toBe(before);
    expect((await client.organization.findUniqueOrThrow({ where: { id: other.id } })).description).toBe("changed");
  });

  it("leaves out an endpoint disabled before the change commits", async () => {
    expect((await subscribers(readContext(admin).db)).map((s) => s.id)).toContain(endpoint.id);
    await client.webhookEndpoint.update({ where: { id: endpoint.id }, data: { enabled: false } });
    const before = await client.webhookDelivery.count();
    // This process still believes the endpoint enabled (it reads the list again after a second).
    await update(watched.id);
    expect(await client.webhookDelivery.count()).toBe(before);
    await client.webhookEndpoint.update({ where: { id: endpoint.id }, data: { enabled: true } });
  });
});
