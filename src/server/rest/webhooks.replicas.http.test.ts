import { describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { systemActor } from "@/server/auth/actor";
import { QUEUE_SCHEMA } from "@/server/jobs/queue";
import { createApiKey } from "@/server/services/api-keys/service";
import { DELIVERY_QUEUE } from "@/server/services/webhooks/outbox";
import { request, startApp, startReplicas, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createSysAdmin, seedRoles } from "@/test/fixtures";
import { startTcpProxy } from "@/test/tcp-proxy";
import { startReceiver, type Received } from "@/test/webhook-receiver";
import { readContext } from "@/server/db/context";

// Webhook delivery when processes die, when there are several, and when the database goes away:
// an event acknowledged is delivered whatever happens next, each message reaches an endpoint once
// per attempt however many replicas run, and the receiver verifies every signature.

const { client, url } = await testDatabase();
await seedRoles(client);
const receiver = await startReceiver();
const admin = await createSysAdmin(client);
const { raw_key: key } = await createApiKey(readContext(systemActor("test")), admin.id, {
  name: "webhooks faults",
  scopes: ["svc:system:webhooks:write", "svc:system:orgs:write", "svc:org:write"],
  expires_at: null,
});
const ENV = { SVC_ALLOW_HTTP_LOOPBACK: "1", SVC_WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1" };
const TEST_TIMEOUT_MS = 240_000;

async function endpointFor(app: RunningApp, name: string) {
  const answer = await request<{ id: string; secret: string }>(app, { key }, "POST", "/api/v1/webhook-endpoints", {
    url: `${receiver.url}/${name}`,
    event_types: ["organization.updated"],
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

/** Updates `count` organizations through `apps` in turn; answers the ids of the acknowledged changes' targets. */
async function changes(apps: RunningApp[], count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const org = await createOrg(client);
    const answer = await request(apps[i % apps.length]!, { key }, "PATCH", `/api/v1/organizations/${org.id}`, {
      description: `change ${i}`,
    });
    expect(answer.status).toBe(200);
    ids.push(org.id);
  }
  return ids;
}

const targetOf = (r: Received) => (JSON.parse(r.body) as { data: { target: { id: string } } }).data.target.id;
const at = (name: string) => receiver.received.filter((r) => r.path === `/${name}`);

/** Until what `received` selects holds an event for each target. */
const untilDelivered = (received: () => Received[], targets: string[], wait: { timeout: number; interval: number }) =>
  vi.waitFor(() => expect(new Set(received().map(targetOf)).size).toBe(targets.length), wait);

/** Holds every answer to `/name` until released, so its deliveries stay in flight; returns the release. */
function holdAnswers(name: string): () => void {
  let holding = true;
  receiver.answer(async (r) => {
    if (r.path === `/${name}`) while (holding) await new Promise((resolve) => setTimeout(resolve, 50));
    return 204;
  });
  return () => {
    holding = false;
  };
}

function expectEachOnce(name: string, secret: string, targets: string[]) {
  const got = at(name).filter((r) => r.headers["webhook-id"]);
  const byMessage = new Map<string, Received[]>();
  for (const r of got) byMessage.set(r.headers["webhook-id"]!, [...(byMessage.get(r.headers["webhook-id"]!) ?? []), r]);
  expect(new Set(got.map(targetOf))).toEqual(new Set(targets));
  for (const r of got) expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
  return byMessage;
}

describe("webhook delivery under faults", () => {
  it(
    "loses none of the events of changes acknowledged just before the app was killed",
    async () => {
      const app = await startApp(url, ENV);
      const endpoint = await endpointFor(app, "killed");
      // The receiver holds every answer, so deliveries are in flight (or not begun) at the kill.
      const release = holdAnswers("killed");
      const targets = await changes([app], 15);
      app.process.kill("SIGKILL");
      await new Promise((resolve) => app.process.once("exit", resolve));
      // The last change's job dies with the process, as when it is killed between the change's
      // commit and the queuing of its job (which follows the commit): only the upkeep brings it.
      await client.$executeRawUnsafe(
        `DELETE FROM ${QUEUE_SCHEMA}.job j USING webhook_messages m
          WHERE j.name = '${DELIVERY_QUEUE}' AND j.data->>'endpoint_id' = $1 AND j.data->>'message_id' = m.id::text
            AND m.payload->'data'->'target'->>'id' = $2`,
        endpoint.id,
        targets.at(-1),
      );
      release();
      // What the killed process had sent was never answered: only what comes after counts. A change
      // whose jobs died with it is swept in by the upkeep within about two minutes (decision 031).
      const restarted = Date.now();
      const again = await startApp(url, ENV);
      const after = () => at("killed").filter((r) => r.at >= restarted);
      await untilDelivered(after, targets, { timeout: 150_000, interval: 250 });
      expectEachOnce("killed", endpoint.secret, targets);
      await again.stop();
      receiver.answer(() => 204);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "delivers each message once with two replicas",
    async () => {
      const replicas = await startReplicas(url, ENV);
      const endpoint = await endpointFor(replicas[0], "replicas");
      // Let the other replica read the new endpoint (it reads the list again within a second).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const targets = await changes(replicas, 40);
      await untilDelivered(() => at("replicas"), targets, { timeout: 60_000, interval: 200 });
      // Nothing failed, so nothing was retried: one request per message.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const byMessage = expectEachOnce("replicas", endpoint.secret, targets);
      expect([...byMessage.values()].every((requests) => requests.length === 1)).toBe(true);
      expect(at("replicas")).toHaveLength(targets.length);
      await Promise.all(replicas.map((r) => r.stop()));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "delays but loses nothing while the database is away",
    async () => {
      const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
      const proxied = new URL(url);
      proxied.host = proxy.address;
      const app = await startApp(proxied.toString(), ENV);
      const endpoint = await endpointFor(app, "outage");
      const release = holdAnswers("outage");
      const targets = await changes([app], 10);
      await proxy.setMode("refuse");
      proxy.reset();
      release();
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      await proxy.setMode("forward");
      await untilDelivered(() => at("outage"), targets, { timeout: 120_000, interval: 250 });
      expectEachOnce("outage", endpoint.secret, targets);
      await app.stop();
      await proxy.close();
    },
    TEST_TIMEOUT_MS,
  );
});
