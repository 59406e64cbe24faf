import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { createApiKey } from "@/server/services/api-keys/service";
import { startReplicas, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createSysAdmin, seedRoles } from "@/test/fixtures";

// Two app processes on one database, as two replicas behind a load balancer, spending one key's
// credits at once: never more requests answered than the key had credits, and none lost — what a
// replica holds in advance goes back to the balance when it stops.

const { client, url } = await testDatabase();
await seedRoles(client);
const [a, b] = await startReplicas(url);
const admin = await createSysAdmin(client);

const creditedKey = async (name: string, remaining: number) =>
  createApiKey(readContext(systemActor("test")), admin.id, {
    name,
    scopes: ["svc:system:orgs:read"],
    expires_at: null,
    // Far above the requests sent: only the credits refuse.
    rate_limit: { requests: 100_000, window_seconds: 60 },
    credits: { remaining, refill: null, low_at: null },
  });

/** `count` requests with the key, all in flight at once, spread over both replicas. */
const burst = (key: string, count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, i) =>
      (i % 2 ? a : b).fetch("/api/v1/me", { headers: { "x-api-key": key } }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      }),
    ),
  );

const tally = (statuses: number[]) => ({
  answered: statuses.filter((s) => s === 200).length,
  refused: statuses.filter((s) => s === 429).length,
});

const balance = async (id: string) =>
  Number((await client.apiKey.findUniqueOrThrow({ where: { id } })).credits_remaining);

describe("credits across two replicas", () => {
  it("answer exactly 50 of 200 concurrent requests on a key with 50 credits", async () => {
    const key = await creditedKey("fifty", 50);
    expect(tally(await burst(key.raw_key, 200))).toEqual({ answered: 50, refused: 150 });
    expect(await balance(key.id)).toBe(0);
  });

  it("never overspend a large balance taken in blocks, and lose nothing once the replicas stop", async () => {
    const key = await creditedKey("thousand", 1000);
    const statuses = [...(await burst(key.raw_key, 600)), ...(await burst(key.raw_key, 600))];
    const { answered, refused } = tally(statuses);
    expect(answered + refused).toBe(1200);
    expect(answered).toBeLessThanOrEqual(1000);
    // Stopped, each replica gives back what it held: every credit is either spent or in the balance.
    await Promise.all([a, b].map((app: RunningApp) => app.stop()));
    expect(answered + (await balance(key.id))).toBe(1000);
    // What one replica holds when the other finds the balance empty is at most a block or two.
    expect(answered).toBeGreaterThanOrEqual(990);
  });
});
