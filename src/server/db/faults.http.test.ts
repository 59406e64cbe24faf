import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { startApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createSysAdmin, seedRoles } from "@/test/fixtures";
import { startTcpProxy } from "@/test/tcp-proxy";

// The app when its database goes away, over HTTP: the app reaches PostgreSQL through a TCP proxy
// of this test's own, which refuses connections or swallows every byte (a black hole). Every
// request then answers 503 `unavailable` with Retry-After instead of hanging or failing with 500,
// nothing is half-written, and the app recovers by itself once the database is back.
//
// Requests carry a generous AbortSignal: not a speed check (the bench measures), only a bound that
// turns a hang into a failure instead of a stuck suite.

const { client, url } = await testDatabase();
await seedRoles(client);
const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
const proxied = new URL(url);
proxied.host = proxy.address;
const app = await startApp(proxied.toString(), { SVC_TRUSTED_PROXY_HOPS: "1" });

const admin = await createSysAdmin(client);
const { raw_key: key } = await createApiKey(systemActor("test"), admin.id, {
  name: "faults",
  scopes: ["svc:system:orgs:read", "svc:system:orgs:write"],
  expires_at: null,
});

const HANG_BOUND_MS = 15_000;
const call = (path: string, init: RequestInit = {}) =>
  app.fetch(path, { ...init, headers: { "x-api-key": key, "content-type": "application/json", ...init.headers }, signal: AbortSignal.timeout(HANG_BOUND_MS) });
const listOrganizations = () => call("/api/v1/organizations");
const createOrganization = (name: string) => call("/api/v1/organizations", { method: "POST", body: JSON.stringify({ name }) });
const ready = () => app.fetch("/api/ready", { signal: AbortSignal.timeout(HANG_BOUND_MS) });

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(((await response.json()) as { code: string }).code).toBe("unavailable");
}

/** A read, a write and a readiness probe at once, each answered 503. */
async function expectAllUnavailable(name: string) {
  for (const response of await Promise.all([listOrganizations(), createOrganization(name), ready()])) await expectUnavailable(response);
}

const outageOrganizations = () => client.organization.count({ where: { name: { startsWith: "during-outage" } } });

describe("database faults", () => {
  it("serves through the proxy while the database answers", async () => {
    expect((await listOrganizations()).status).toBe(200);
    expect((await ready()).status).toBe(200);
  });

  it("answers 503 when connections are cut under requests in flight", async () => {
    // A key this app has not seen yet: its lookup is one of the statements in flight.
    const { raw_key: fresh } = await createApiKey(systemActor("test"), admin.id, { name: "fresh", scopes: ["svc:system:orgs:read"], expires_at: null });
    await proxy.setMode("blackhole");
    const lookup = app.fetch("/api/v1/me", { headers: { "x-api-key": fresh }, signal: AbortSignal.timeout(HANG_BOUND_MS) });
    const inFlight = Promise.all([listOrganizations(), createOrganization("during-outage-cut"), ready(), lookup]);
    // The requests wait on the black hole with their statements sent; cutting it resets their
    // connections mid-statement, and the database refuses new ones.
    await new Promise((r) => setTimeout(r, 300));
    await proxy.setMode("refuse");
    for (const response of await inFlight) await expectUnavailable(response);
  });

  it("answers 503 while connections are refused, the key's lookup included", async () => {
    await proxy.setMode("refuse");
    await expectAllUnavailable("during-outage-refused");
  });

  it("answers 503 when the database accepts connections but never answers", async () => {
    await proxy.setMode("blackhole");
    await expectAllUnavailable("during-outage-blackhole");
  });

  it("recovers by itself once the database is back, with nothing half-written", async () => {
    await proxy.setMode("forward");
    let status = 0;
    for (let i = 0; i < 150 && status !== 200; i++) {
      status = (await ready()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect((await listOrganizations()).status).toBe(200);
    expect((await createOrganization("after-outage")).status).toBe(201);
    expect(await outageOrganizations()).toBe(0);
  });
});

describe("GET /api/metrics without SVC_METRICS_TOKEN", () => {
  it("is served to this machine and to nobody else", async () => {
    const local = await app.fetch("/api/metrics");
    expect(local.status).toBe(200);
    expect(await local.text()).toMatch(/^svc_api_key_authentications_total\{outcome="unavailable"\} [1-9]\d*$/m);
    const remote = await app.fetch("/api/metrics", { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(remote.status).toBe(403);
    expect(((await remote.json()) as { code: string }).code).toBe("forbidden");
  });
});
