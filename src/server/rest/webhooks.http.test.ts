import { describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { request, startApp, type Caller } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, createSysAdmin, seedRoles } from "@/test/fixtures";
import { startReceiver, type Received } from "@/test/webhook-receiver";
import { readContext } from "@/server/db/context";

// Webhooks over real HTTP, to a real receiver that checks every signature with the Standard
// Webhooks library: the events changes emit, an organization's endpoint seeing only its own, the
// address rules at save, a failed answer retried with the same webhook-id, secret rotation, and no
// secret in any payload.

const { client, url } = await testDatabase();
await seedRoles(client);
const app = await startApp(url, { SVC_ALLOW_HTTP_LOOPBACK: "1", SVC_WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1" });
const receiver = await startReceiver();

const admin = await createSysAdmin(client);
const adminKey = await createApiKey(readContext(systemActor("test")), admin.id, {
  name: "webhooks admin",
  scopes: [
    "svc:system:webhooks:read",
    "svc:system:webhooks:write",
    "svc:system:orgs:read",
    "svc:system:orgs:write",
    "svc:org:write",
    "svc:org:llm_configs:write",
    "svc:org:webhooks:read",
    "svc:org:webhooks:write",
  ],
  expires_at: null,
});
const asAdmin: Caller = { key: adminKey.raw_key };

const secrets = new Map<string, string[]>();

/** Whether one of the endpoint's secrets verifies the request (the library throws otherwise). */
function verified(endpointId: string, r: Received): boolean {
  return (secrets.get(endpointId) ?? []).some((secret) => {
    try {
      new Webhook(secret).verify(r.body, r.headers);
      return true;
    } catch {
      return false;
    }
  });
}

async function createEndpoint(path: string, body: Record<string, unknown>, as: Caller = asAdmin) {
  const answer = await request<Record<string, unknown>>(app, as, "POST", path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  secrets.set(answer.body.id as string, [answer.body.secret as string]);
  return answer.body as { id: string; secret: string; url: string };
}

const at = (name: string) => `${receiver.url}/${name}`;
const forEndpoint = (name: string) => receiver.received.filter((r) => r.path === `/${name}`);
interface AuditData {
  action?: string;
  outcome?: string;
  org_id?: string | null;
  target?: { type: string | null; id: string | null };
  changes?: unknown;
}
const payload = (r: Received) => JSON.parse(r.body) as { type: string; timestamp: string; data: AuditData };

describe("platform endpoints", () => {
  it("creates an endpoint whose secret is shown once and stored encrypted", async () => {
    const endpoint = await createEndpoint("/api/v1/webhook-endpoints", {
      url: at("platform"),
      event_types: ["*"],
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await request(app, asAdmin, "GET", `/api/v1/webhook-endpoints/${endpoint.id}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(endpoint.secret.slice(6));
    const row = await client.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.secret_encrypted).not.toContain(endpoint.secret.slice(6));
    const listed = await request<{ data: { id: string }[] }>(app, asAdmin, "GET", "/api/v1/webhook-endpoints");
    expect(listed.body.data.map((e) => e.id)).toContain(endpoint.id);
  });

  it("delivers a change's event, signed, with the audit event as data", async () => {
    const created = await request<{ id: string }>(app, asAdmin, "POST", "/api/v1/organizations", {
      name: `wh-org-${Date.now()}`,
    });
    expect(created.status).toBe(201);
    const [endpoint] = await client.webhookEndpoint.findMany({ where: { url: at("platform") } });
    await vi.waitFor(
      () =>
        expect(
          forEndpoint("platform").filter(
            (r) => payload(r).type === "organization.created" && payload(r).data.target?.id === created.body.id,
          ),
        ).toHaveLength(1),
      { timeout: 15_000, interval: 100 },
    );
    const delivered = forEndpoint("platform").find((r) => payload(r).data.target?.id === created.body.id)!;
    expect(verified(endpoint!.id, delivered)).toBe(true);
    const event = payload(delivered);
    expect(event.data).toMatchObject({
      action: "createOrganization",
      outcome: "success",
      actor: { user_id: admin.id, username: admin.username, auth: "api_key" },
      target: { type: "organization", id: created.body.id },
      org_id: created.body.id,
    });
    // The same event as the audit trail lists it.
    const trail = await request<{ data: Record<string, unknown>[] }>(
      app,
      { key: adminKey.raw_key },
      "GET",
      `/api/v1/audit-events?target_id=${created.body.id}`,
    );
    if (trail.status === 200) expect(trail.body.data[0]).toEqual(event.data);
    expect(delivered.headers["webhook-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses internal addresses in any spelling when the endpoint is saved", async () => {
    const spellings = [
      "https://127.0.0.1/hook",
      "https://2130706433/hook",
      "https://0x7f000001/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://169.254.169.254/latest",
      "https://[fd00::1]/hook",
      "https://10.0.0.1/hook",
      "https://100.64.0.1/hook",
      "https://metadata.google.internal/hook",
      "https://printer.local./hook",
      "https://localhost./hook",
      "http://example.com/hook",
      "https://user:pass@example.com/hook",
      "ftp://example.com/hook",
    ];
    for (const spelling of spellings) {
      const answer = await request<{ code: string }>(app, asAdmin, "POST", "/api/v1/webhook-endpoints", {
        url: spelling,
        event_types: ["*"],
      });
      expect(answer.status, spelling).toBe(400);
      expect(answer.body.code).toBe("validation_failed");
    }
    const [endpoint] = await client.webhookEndpoint.findMany({ where: { url: at("platform") } });
    const patched = await request(app, asAdmin, "PATCH", `/api/v1/webhook-endpoints/${endpoint!.id}`, {
      url: "https://[::ffff:a9fe:a9fe]/",
    });
    expect(patched.status).toBe(400);
    expect(await client.webhookEndpoint.count({ where: { url: { contains: "a9fe" } } })).toBe(0);
  });

  it("refuses unknown event types and an empty list", async () => {
    for (const event_types of [[], ["no.such_type"], ["webhook.test"]]) {
      const answer = await request(app, asAdmin, "POST", "/api/v1/webhook-endpoints", {
        url: at("x"),
        event_types,
      });
      expect(answer.status, JSON.stringify(event_types)).toBe(400);
    }
  });

  it("lists the event types", async () => {
    const answer = await request<{ data: { type: string; kind: string }[] }>(
      app,
      asAdmin,
      "GET",
      "/api/v1/webhook-event-types",
    );
    expect(answer.status).toBe(200);
    const types = answer.body.data.map((e) => e.type);
    for (const type of [
      "api_key.created",
      "api_key.revoked",
      "api_key.rolled",
      "api_key.updated",
      "api_key.leaked",
      "api_key.expiring",
      "api_key.expired",
      "api_key.idle_revoked",
      "organization.created",
      "member.added",
      "member.removed",
      "role.granted",
      "webhook_endpoint.disabled",
      "audit.event",
    ])
      expect(types).toContain(type);
  });
});

describe("delivery", () => {
  it("retries an answer of 500 with the same webhook-id, and records each attempt", async () => {
    const endpoint = await createEndpoint("/api/v1/webhook-endpoints", {
      url: at("flaky"),
      event_types: ["organization.updated"],
    });
    let failures = 1;
    receiver.answer((r) => (r.path === "/flaky" && failures-- > 0 ? 500 : 204));
    const org = await createOrg(client);
    const updated = await request(app, asAdmin, "PATCH", `/api/v1/organizations/${org.id}`, { description: "x" });
    expect(updated.status).toBe(200);
    await vi.waitFor(() => expect(forEndpoint("flaky")).toHaveLength(2), { timeout: 20_000, interval: 100 });
    const [first, second] = forEndpoint("flaky");
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    expect(verified(endpoint.id, first!) && verified(endpoint.id, second!)).toBe(true);
    await vi.waitFor(
      async () => {
        const list = await request<{ data: Record<string, unknown>[] }>(
          app,
          asAdmin,
          "GET",
          `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`,
        );
        expect(list.body.data[0]).toMatchObject({
          status: "delivered",
          attempts: 2,
          last_status_code: 204,
          event_type: "organization.updated",
          message_id: first!.headers["webhook-id"],
        });
      },
      { timeout: 10_000, interval: 100 },
    );
    receiver.answer(() => 204);
  });

  it("sends a test event to that endpoint only, and retries a delivery on request", async () => {
    const endpoint = await createEndpoint("/api/v1/webhook-endpoints", {
      url: at("tested"),
      event_types: ["member.added"],
    });
    const sent = await request<{ delivery_id: string; message_id: string }>(
      app,
      asAdmin,
      "POST",
      `/api/v1/webhook-endpoints/${endpoint.id}/test`,
    );
    expect(sent.status).toBe(202);
    await vi.waitFor(() => expect(forEndpoint("tested")).toHaveLength(1), { timeout: 10_000, interval: 100 });
    expect(payload(forEndpoint("tested")[0]!).type).toBe("webhook.test");
    // Retry, as the console offers it, on a delivery the list shows.
    await vi.waitFor(
      async () =>
        expect((await client.webhookDelivery.findUniqueOrThrow({ where: { id: sent.body.delivery_id } })).status).toBe(
          "delivered",
        ),
      { timeout: 10_000, interval: 100 },
    );
    expect(receiver.ofType("webhook.test").every((r) => r.path === "/tested")).toBe(true);
    const retried = await request(
      app,
      asAdmin,
      "POST",
      `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${sent.body.delivery_id}/retry`,
    );
    expect(retried.status).toBe(202);
    await vi.waitFor(() => expect(forEndpoint("tested")).toHaveLength(2), { timeout: 10_000, interval: 100 });
    expect(forEndpoint("tested")[1]!.headers["webhook-id"]).toBe(sent.body.message_id);
  });

  it("signs with both secrets for a day after a rotation", async () => {
    const endpoint = await createEndpoint("/api/v1/webhook-endpoints", {
      url: at("rotated"),
      event_types: ["*"],
    });
    const rotated = await request<{ secret: string }>(
      app,
      asAdmin,
      "POST",
      `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await request(app, asAdmin, "POST", `/api/v1/webhook-endpoints/${endpoint.id}/test`);
    await vi.waitFor(() => expect(forEndpoint("rotated").some((r) => payload(r).type === "webhook.test")).toBe(true), {
      timeout: 10_000,
    });
    const delivered = forEndpoint("rotated").find((r) => payload(r).type === "webhook.test")!;
    expect(delivered.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.body.secret]) {
      expect(() => new Webhook(secret).verify(delivered.body, delivered.headers)).not.toThrow();
    }
  });

  it("emits nothing for a change that was rolled back", async () => {
    const before = receiver.received.length;
    const org = await createOrg(client);
    await client.organization.update({ where: { id: org.id }, data: { domain: `taken-${Date.now()}.example` } });
    const taken = (await client.organization.findUniqueOrThrow({ where: { id: org.id } })).domain!;
    const other = await createOrg(client);
    const refused = await request(app, asAdmin, "PATCH", `/api/v1/organizations/${other.id}`, { domain: taken });
    expect(refused.status).toBe(409);
    // A change committed after it is delivered; the refused one never is.
    const later = await request(app, asAdmin, "PATCH", `/api/v1/organizations/${other.id}`, { description: "later" });
    expect(later.status).toBe(200);
    await vi.waitFor(
      () =>
        expect(
          receiver.received
            .slice(before)
            .some((r) => payload(r).type === "organization.updated" && payload(r).data.target?.id === other.id),
        ).toBe(true),
      { timeout: 10_000 },
    );
    const aboutOther = receiver.received.slice(before).filter((r) => payload(r).data.target?.id === other.id);
    expect(aboutOther.every((r) => !JSON.stringify(payload(r).data.changes ?? {}).includes(taken))).toBe(true);
  });
});

describe("an organization's endpoints", () => {
  it("get that organization's events and never another's", async () => {
    const mine = await createOrg(client);
    const theirs = await createOrg(client);
    const orgAdmin = await createOrgAdmin(client, mine.id);
    const orgKey = await createApiKey(readContext(systemActor("test")), orgAdmin.id, {
      name: "org admin",
      scopes: ["svc:org:webhooks:read", "svc:org:webhooks:write", "svc:org:write"],
      expires_at: null,
    });
    const endpoint = await createEndpoint(
      `/api/v1/organizations/${mine.id}/webhook-endpoints`,
      { url: at("org-mine"), event_types: ["*", "audit.event"] },
      { key: orgKey.raw_key },
    );
    // Another organization's endpoints are not there for this admin.
    const elsewhere = await request(
      app,
      { key: orgKey.raw_key },
      "GET",
      `/api/v1/organizations/${theirs.id}/webhook-endpoints`,
    );
    expect(elsewhere.status).toBe(403);
    const cross = await request(
      app,
      { key: orgKey.raw_key },
      "GET",
      `/api/v1/organizations/${theirs.id}/webhook-endpoints/${endpoint.id}`,
    );
    expect([403, 404]).toContain(cross.status);
    await request(app, asAdmin, "PATCH", `/api/v1/organizations/${theirs.id}`, { description: "theirs" });
    await request(app, { key: orgKey.raw_key }, "PATCH", `/api/v1/organizations/${mine.id}`, { description: "mine" });
    await vi.waitFor(
      () => expect(forEndpoint("org-mine").some((r) => payload(r).type === "organization.updated")).toBe(true),
      { timeout: 10_000 },
    );
    // The other organization's change was committed first: had it been addressed here it would have come.
    for (const r of forEndpoint("org-mine")) {
      expect(payload(r).data.org_id).toBe(mine.id);
      expect(verified(endpoint.id, r)).toBe(true);
    }
    // The audit stream: the refusal above (an organization it may not see) is there too, as denied.
    const denied = forEndpoint("org-mine").filter(
      (r) => payload(r).type === "audit.event" && payload(r).data.outcome === "denied",
    );
    expect(denied.every((r) => payload(r).data.org_id === mine.id)).toBe(true);
  });
});

describe("payloads", () => {
  it("carry no secret, hash or provider key", async () => {
    const org = await createOrg(client);
    await createEndpoint("/api/v1/webhook-endpoints", { url: at("secrets"), event_types: ["*", "audit.event"] });
    const providerKey = `sk-provider-${Date.now()}-abcdefghijklmnop`;
    const config = await request(app, asAdmin, "POST", `/api/v1/organizations/${org.id}/llm-configs`, {
      name: "c",
      provider: "openai",
      api_key: providerKey,
    });
    expect(config.status).toBe(201);
    const rotated = await request<{ secret: string; id: string }>(app, asAdmin, "POST", "/api/v1/webhook-endpoints", {
      url: at("unused"),
      event_types: ["member.added"],
    });
    await request(app, asAdmin, "POST", `/api/v1/webhook-endpoints/${rotated.body.id}/rotate-secret`);
    await vi.waitFor(
      () =>
        expect(
          forEndpoint("secrets").filter((r) => payload(r).data.action === "rotateWebhookEndpointSecret"),
        ).not.toHaveLength(0),
      { timeout: 10_000 },
    );
    const everything = receiver.received.map((r) => r.body).join("\n");
    expect(everything).not.toContain(providerKey);
    expect(everything).not.toContain(adminKey.raw_key);
    expect(everything).not.toContain(rotated.body.secret.slice(6));
    for (const secret of [...secrets.values()].flat()) expect(everything).not.toContain(secret.slice(6));
    const keyRow = await client.apiKey.findUniqueOrThrow({ where: { id: adminKey.id } });
    expect(everything).not.toContain(keyRow.key_hash);
    expect(everything).not.toMatch(/bound:v1:/);
  });
});
