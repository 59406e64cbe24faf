import { describe, expect, it } from "vitest";
import { startEndpointReceiver } from "@/test/webhook-receiver";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { testDatabase } from "@/test/database";
import { createSysAdmin, seedRoles } from "@/test/fixtures";
import { sessionActor } from "@/test/actors";
import { createWebhookEndpoint } from "./endpoints";
import { emitKeyExpiryEvents, keyRateLimited } from "./key-events";
import { readContext } from "@/server/db/context";

// api_key.expiring (7 days, then 1 day before) and api_key.expired: each once per key, naming the
// key and never its secret.

process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const receiver = await startEndpointReceiver();
const { client } = await testDatabase();
await seedRoles(client);
const owner = await createSysAdmin(client);
const admin = await sessionActor(client, owner.id);

describe("key expiry events", () => {
  it("are emitted once each, to endpoints that want them", async () => {
    await createWebhookEndpoint(readContext(admin), null, {
      url: `${receiver.url}/keys`,
      description: null,
      event_types: ["api_key.expiring", "api_key.expired"],
      enabled: true,
    });
    const day = 86_400_000;
    const now = new Date();
    const soon = await createApiKey(readContext(systemActor("test")), owner.id, {
      name: "soon",
      scopes: [],
      expires_at: new Date(now.getTime() + 3 * day).toISOString(),
    });
    const later = await createApiKey(readContext(systemActor("test")), owner.id, {
      name: "later",
      scopes: [],
      expires_at: new Date(now.getTime() + 30 * day).toISOString(),
    });
    expect(await emitKeyExpiryEvents(readContext(systemActor("webhooks")), now)).toBe(1);
    expect(await emitKeyExpiryEvents(readContext(systemActor("webhooks")), now)).toBe(0);
    // A day before: again, once; then expired, once.
    expect(await emitKeyExpiryEvents(readContext(systemActor("webhooks")), new Date(now.getTime() + 2.5 * day))).toBe(
      1,
    );
    expect(await emitKeyExpiryEvents(readContext(systemActor("webhooks")), new Date(now.getTime() + 2.6 * day))).toBe(
      0,
    );
    expect(await emitKeyExpiryEvents(readContext(systemActor("webhooks")), new Date(now.getTime() + 3.1 * day))).toBe(
      1,
    );
    const messages = await client.webhookMessage.findMany({ orderBy: { created_at: "asc" } });
    expect(messages.map((m) => m.event_type)).toEqual(["api_key.expiring", "api_key.expiring", "api_key.expired"]);
    const text = JSON.stringify(messages.map((m) => m.payload));
    expect(text).toContain(soon.id);
    expect(text).not.toContain(later.id);
    expect(text).not.toContain(soon.raw_key);
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: soon.id } });
    expect(text).not.toContain(row.key_hash);
    expect((messages[0]!.payload as { data: { api_key: object } }).data.api_key).toEqual({
      id: soon.id,
      key_prefix: row.key_prefix,
      user_id: owner.id,
      name: "soon",
      expires_at: row.expires_at!.toISOString(),
    });
    expect(await client.webhookDelivery.count()).toBe(3);
  });

  it("api_key.rate_limited goes out for a key's first 429 in an hour, once", async () => {
    await createWebhookEndpoint(readContext(admin), null, {
      url: `${receiver.url}/limits`,
      description: null,
      event_types: ["api_key.rate_limited"],
      enabled: true,
    });
    const key = await createApiKey(readContext(systemActor("test")), owner.id, {
      name: "busy",
      scopes: [],
      expires_at: null,
    });
    const at = new Date("2026-11-26T10:15:00Z");
    await keyRateLimited(readContext(systemActor("webhooks")), key.id, at);
    await keyRateLimited(readContext(systemActor("webhooks")), key.id, new Date("2026-11-26T10:45:00Z"));
    await keyRateLimited(readContext(systemActor("webhooks")), key.id, new Date("2026-11-26T11:05:00Z"));
    const messages = await client.webhookMessage.findMany({ where: { event_type: "api_key.rate_limited" } });
    expect(messages).toHaveLength(2);
    expect(JSON.stringify(messages.map((m) => m.payload))).not.toContain(key.raw_key);
  });
});
