import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, startReplicas, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createSysAdmin, createUser, PASSWORD, seedRoles } from "@/test/fixtures";
import { readContext } from "@/server/db/context";

// Two app processes on one database and the Redis of this machine (REDIS_URL, else
// 127.0.0.1:6379), as two replicas behind a load balancer: limits hold across both, and a revoke
// on one is refused on the other.

const { client, url } = await testDatabase();
await seedRoles(client);
const [a, b] = await startReplicas(url, { SVC_AUTH_FAILURE_LIMIT: "4" });
const replicas = [a, b];
const admin = await createSysAdmin(client);

const me = (app: RunningApp, key: string) => app.fetch("/api/v1/me", { headers: { "x-api-key": key } });

/** A raw key of the admin's allowed `requests` a minute. */
const limitedKey = async (name: string, requests: number) =>
  (
    await createApiKey(readContext(systemActor("test")), admin.id, {
      name,
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
      rate_limit: { requests, window_seconds: 60 },
    })
  ).raw_key;

/**
 * The statuses of `batches` batches of ten requests with the key, the replicas taking turns. Ten in
 * flight at a time: a burst of a hundred on a busy machine can hold an event loop past Redis'
 * command timeout, and then each replica counts alone, by design.
 */
async function alternately(key: string, batches: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    statuses.push(
      ...(await Promise.all(Array.from({ length: 10 }, (_, i) => me(i % 2 ? a : b, key).then((r) => r.status)))),
    );
  }
  return statuses;
}

/** Between `min` and `max` requests accepted (200), every other one refused with 429. */
function expectAccepted(statuses: number[], min: number, max: number) {
  const accepted = statuses.filter((s) => s === 200).length;
  expect(accepted).toBeGreaterThanOrEqual(min);
  expect(accepted).toBeLessThanOrEqual(max);
  expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
}

describe("two replicas sharing Redis", () => {
  it("hold a key's rate limit across both", async () => {
    const statuses = await alternately(await limitedKey("shared-limit", 40), 10);
    // Within 10% of the limit, where each replica counting alone would accept up to twice it.
    expectAccepted(statuses, 36, 44);
  });

  it("hold a large limit across both, counted in Redis a block at a time", async () => {
    const statuses = await alternately(await limitedKey("shared-large-limit", 400), 45);
    // Never past the limit; what either replica holds unspent (blocks of 4) costs at most a few.
    expectAccepted(statuses, 388, 400);
  });

  it("refuse a key revoked on one replica on the other within a second", async () => {
    const session = new Browserless(a.baseUrl);
    expect(await session.signIn(admin.username, PASSWORD)).toBe(true);
    const { id, raw_key } = await createApiKey(readContext(systemActor("test")), admin.id, {
      name: "revoked-on-a",
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
    });
    // Both replicas have the key cached as valid.
    for (const app of replicas) for (let i = 0; i < 3; i++) expect((await me(app, raw_key)).status).toBe(200);
    expect((await session.fetch(`/api/admin/users/api-keys/${id}`, { method: "DELETE" })).status).toBe(200);
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 1000) status = (await me(b, raw_key)).status;
    expect(status).toBe(401);
  });

  it("refuse every key of a user revoked at once on one replica on the other within a second", async () => {
    const session = new Browserless(a.baseUrl);
    expect(await session.signIn(admin.username, PASSWORD)).toBe(true);
    const owner = await createSysAdmin(client);
    const keys = await Promise.all(
      [1, 2, 3].map((i) =>
        createApiKey(readContext(systemActor("test")), owner.id, {
          name: `revoke-all-${i}`,
          scopes: ["svc:system:orgs:read"],
          expires_at: null,
        }),
      ),
    );
    for (const app of replicas) for (const { raw_key } of keys) expect((await me(app, raw_key)).status).toBe(200);
    const answer = await session.fetch(`/api/admin/users/${owner.id}/api-keys/revoke-all`, { method: "POST" });
    expect(await answer.json()).toEqual({ revoked: 3 });
    const revokedAt = Date.now();
    for (const { raw_key } of keys) {
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 1000) status = (await me(b, raw_key)).status;
      expect(status).toBe(401);
    }
  });

  it("share failed sign-ins and failed keys per client address", async () => {
    const user = await createUser(client);
    const signIn = async (app: RunningApp, password: string) =>
      (await new Browserless(app.baseUrl).postCredentials({ username: user.username, password })).href;
    for (const app of [a, a, b, b]) expect(await signIn(app, "not-the-password")).toContain("error=CredentialsSignin");
    // Four failures, two on each: the next attempt on either is refused, the right password too.
    expect(await signIn(a, PASSWORD)).toContain("code=rate_limited");
    expect(await signIn(b, PASSWORD)).toContain("code=rate_limited");
    expect((await me(b, "cdk_" + "B".repeat(49))).status).toBe(429);
  });
});
