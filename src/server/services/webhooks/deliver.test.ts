import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { testDatabase } from "@/test/database";
import { createSysAdmin, seedRoles } from "@/test/fixtures";
import { sessionActor } from "@/test/actors";
import { startEndpointReceiver } from "@/test/webhook-receiver";
import { deliver } from "./deliver";
import { createWebhookEndpoint } from "./endpoints";
import { emitEvent } from "./events";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";

// One delivery job run in-process against a real receiver: the attempt, its record, the retry
// schedule, and the address rules checked again at delivery.

const receiver = await startEndpointReceiver();
process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
process.env.SVC_WEBHOOK_RETRY_SCHEDULE = "60,60";
const { client } = await testDatabase();
await seedRoles(client);
const admin = await sessionActor(client, (await createSysAdmin(client)).id);

async function endpointWithMessage(name: string) {
  const endpoint = await createWebhookEndpoint(readContext(admin), null, {
    url: `${receiver.url}/${name}`,
    description: null,
    event_types: ["*"],
    enabled: true,
  });
  const emitted = await emitEvent(readContext(systemActor("webhooks")), "api_key.expired", null, {
    api_key: { id: "k" },
  });
  const job = { message_id: emitted!.messageId, endpoint_id: endpoint.id };
  const delivery = () => client.webhookDelivery.findUniqueOrThrow({ where: { message_id_endpoint_id: job } });
  return { endpoint, job, delivery };
}

describe("a delivery attempt", () => {
  it("records a 2xx as delivered, signed with the endpoint's secret", async () => {
    const { endpoint, job, delivery } = await endpointWithMessage("ok");
    await deliver(readContext(systemActor("webhooks")), job);
    expect(await delivery()).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 204 });
    const [got] = receiver.received.filter((r) => r.path === "/ok");
    expect(() => new Webhook(endpoint.secret).verify(got!.body, got!.headers)).not.toThrow();
    // A second job for the same delivery sends nothing more.
    await deliver(readContext(systemActor("webhooks")), job);
    expect(receiver.received.filter((r) => r.path === "/ok")).toHaveLength(1);
  });

  it("schedules the next attempt after a failure, and fails after the last", async () => {
    receiver.answer((r) => (r.path === "/down" ? 500 : 204));
    const { job, delivery } = await endpointWithMessage("down");
    await deliver(readContext(systemActor("webhooks")), job);
    const first = await delivery();
    expect(first).toMatchObject({ status: "pending", attempts: 1, last_status_code: 500 });
    expect(first.last_response?.length).toBeLessThanOrEqual(1024);
    expect(first.next_attempt_at!.getTime() - Date.now()).toBeGreaterThan(50_000);
    // Not due yet: a job now does nothing.
    await deliver(readContext(systemActor("webhooks")), job);
    expect((await delivery()).attempts).toBe(1);
    for (const attempts of [2, 3]) {
      await client.webhookDelivery.update({ where: { id: first.id }, data: { next_attempt_at: new Date() } });
      await deliver(readContext(systemActor("webhooks")), job);
      expect((await delivery()).attempts).toBe(attempts);
    }
    expect(await delivery()).toMatchObject({ status: "failed", next_attempt_at: null });
    receiver.answer(() => 204);
  });

  it("refuses at delivery an address the rules refuse, whatever was saved", async () => {
    const { job, delivery } = await endpointWithMessage("moved");
    await client.webhookEndpoint.update({
      where: { id: job.endpoint_id },
      data: { url: "https://169.254.169.254/latest/meta-data" },
    });
    await deliver(readContext(systemActor("webhooks")), job);
    expect(await delivery()).toMatchObject({ status: "pending", attempts: 1, last_status_code: null });
    expect((await delivery()).last_error).toMatch(/internal address/);
  });

  it("disables an endpoint failing for 5 days with nothing delivered, and says so", async () => {
    const watcher = await createWebhookEndpoint(readContext(admin), null, {
      url: `${receiver.url}/watcher`,
      description: null,
      event_types: ["webhook_endpoint.disabled"],
      enabled: true,
    });
    receiver.answer((r) => (r.path === "/dying" ? 503 : 204));
    const { job } = await endpointWithMessage("dying");
    await client.webhookEndpoint.update({
      where: { id: job.endpoint_id },
      data: { failing_since: new Date(Date.now() - 5 * 86_400_000 - 60_000) },
    });
    await deliver(readContext(systemActor("webhooks")), job);
    const endpoint = await client.webhookEndpoint.findUniqueOrThrow({ where: { id: job.endpoint_id } });
    expect(endpoint).toMatchObject({ enabled: false });
    expect(endpoint.disabled_reason).toMatch(/5 days/);
    const [message] = await client.webhookMessage.findMany({ where: { event_type: "webhook_endpoint.disabled" } });
    expect((message!.payload as { data: unknown }).data).toEqual({
      webhook_endpoint: { id: job.endpoint_id, org_id: null, url: `${receiver.url}/dying` },
    });
    const deliveries = await client.webhookDelivery.findMany({ where: { message_id: message!.id } });
    expect(deliveries.map((d) => d.endpoint_id)).toContain(watcher.id);
    expect(deliveries.map((d) => d.endpoint_id)).not.toContain(job.endpoint_id);
    receiver.answer(() => 204);
  });
});
