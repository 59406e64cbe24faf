import { afterAll, describe, expect, it, vi } from "vitest";
import { startEndpointReceiver } from "@/test/webhook-receiver";
import { ensureQueue, startQueue } from "@/server/jobs/queue";
import { auditedChange } from "@/server/operations/invoke";
import { NO_REQUEST } from "@/server/services/audit/record";
import { testDatabase } from "@/test/database";
import { createOrg, createSysAdmin, seedRoles } from "@/test/fixtures";
import { sessionActor } from "@/test/actors";
import { createWebhookEndpoint } from "./endpoints";
import { DELIVERY_QUEUE, type DeliveryJob } from "./outbox";
import { ORPHAN_AFTER_SECONDS, webhookUpkeep } from "./upkeep";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";

// A change's delivery jobs are queued after its commit (off its own path), on a real pg-boss queue
// in the test database; no worker runs here, so the jobs stay where they were queued. Deliveries
// whose jobs never came (the process died first) are queued by the upkeep's sweep, and only those.

process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const receiver = await startEndpointReceiver();
const { client } = await testDatabase();
await seedRoles(client);
const admin = await sessionActor(client, (await createSysAdmin(client)).id);
const org = await createOrg(client);
await createWebhookEndpoint(readContext(admin), org.id, {
  url: `${receiver.url}/relay`,
  description: null,
  event_types: ["organization.updated"],
  enabled: true,
});

const update = (description: string) =>
  auditedChange(
    admin,
    NO_REQUEST,
    ({ db }) => db.organization.update({ where: { id: org.id }, data: { description } }),
    () => ({ action: "updateOrganization", target: { type: "organization", id: org.id }, orgId: org.id }),
  );

/** The delivery of the change that set `description`. */
async function deliveryOf(description: string): Promise<DeliveryJob> {
  const event = await client.auditEvent.findFirstOrThrow({
    where: { target_id: org.id, changes: { path: ["description", "new"], equals: description } },
  });
  const message = await client.webhookMessage.findFirstOrThrow({
    where: { payload: { path: ["data", "id"], equals: event.id } },
  });
  const delivery = await client.webhookDelivery.findFirstOrThrow({ where: { message_id: message.id } });
  return { message_id: delivery.message_id, endpoint_id: delivery.endpoint_id };
}

/** The data of the delivery jobs waiting in the queue. */
async function queuedJobs(): Promise<DeliveryJob[]> {
  const rows = await client.$queryRawUnsafe<{ data: DeliveryJob }[]>(
    `SELECT data FROM pgboss.job WHERE name = $1 AND state = 'created'`,
    DELIVERY_QUEUE,
  );
  return rows.map((r) => ({ message_id: r.data.message_id, endpoint_id: r.data.endpoint_id }));
}

// A process with no queue (as one that died before queuing, or the CLI) writes the delivery only.
await update("before the queue");
const orphan = await deliveryOf("before the queue");

const queue = await startQueue(async (boss) => ensureQueue(boss, DELIVERY_QUEUE));
afterAll(() => queue.boss.stop({ graceful: false }));

describe("delivery jobs", () => {
  it("are queued once the change commits", async () => {
    await update("with the queue");
    const delivery = await deliveryOf("with the queue");
    await vi.waitFor(async () => expect(await queuedJobs()).toContainEqual(delivery), { timeout: 5_000 });
    expect(await queuedJobs()).not.toContainEqual(orphan);
  });

  it("are not queued for a change rolled back", async () => {
    const before = await queuedJobs();
    await expect(
      auditedChange(
        admin,
        NO_REQUEST,
        async ({ db }) => {
          await db.organization.update({ where: { id: org.id }, data: { description: "no" } });
          throw new Error("rolled back");
        },
        () => ({ action: "updateOrganization", target: { type: "organization", id: org.id }, orgId: org.id }),
      ),
    ).rejects.toThrow("rolled back");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await queuedJobs()).toEqual(before);
  });

  it("that never came are queued by the sweep once the delivery is 15 seconds due, not before", async () => {
    expect(await webhookUpkeep(readContext(systemActor("webhooks")))).toMatchObject({ requeued: 0 });
    await client.webhookDelivery.updateMany({
      where: { message_id: orphan.message_id },
      data: { created_at: new Date(Date.now() - (ORPHAN_AFTER_SECONDS + 5) * 1_000) },
    });
    expect(await webhookUpkeep(readContext(systemActor("webhooks")))).toMatchObject({ requeued: 1 });
    expect(await queuedJobs()).toContainEqual(orphan);
  });

  it("that wait in a backlogged queue are not given a second job, however long due", async () => {
    await update("waiting its turn");
    const waiting = await deliveryOf("waiting its turn");
    await vi.waitFor(async () => expect(await queuedJobs()).toContainEqual(waiting), { timeout: 5_000 });
    await client.webhookDelivery.updateMany({
      where: { message_id: waiting.message_id },
      data: { created_at: new Date(Date.now() - 10 * 60_000) },
    });
    expect(await webhookUpkeep(readContext(systemActor("webhooks")))).toMatchObject({ requeued: 0 });
    expect((await queuedJobs()).filter((job) => job.message_id === waiting.message_id)).toHaveLength(1);
  });
});
