import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { startApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createSysAdmin, seedRoles } from "@/test/fixtures";
import { startTcpProxy } from "@/test/tcp-proxy";
import { readContext } from "@/server/db/context";

// The app when its database goes away, over HTTP, through a TCP proxy that refuses, black-holes or
// resets its connections (and the server ending them): every request answers 503 `unavailable`
// with Retry-After rather than hanging or a 500, nothing is half-written, and the app recovers by
// itself. The time bounds (5 s a request, 2 s a readiness probe, serving again within 10 s) are
// behaviour, not speed; each request carries its bound as an AbortSignal so a hang fails the test.

const ANSWER_BOUND_MS = 5_000;
const READY_BOUND_MS = 2_000;
const RECOVERY_BOUND_MS = 10_000;
// How long a test waits for its requests to be in flight (well within their bound on a busy machine).
const IN_FLIGHT_WAIT = { timeout: ANSWER_BOUND_MS, interval: 20 };

const { client, url } = await testDatabase();
await seedRoles(client);
const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
const proxied = new URL(url);
proxied.host = proxy.address;
// The app's connections carry a name of their own, for the test to find them on the server.
const APP_CONNECTIONS = "svc-faults-test-app";
proxied.searchParams.set("application_name", APP_CONNECTIONS);
const app = await startApp(proxied.toString(), { SVC_TRUSTED_PROXY_HOPS: "1" });

const admin = await createSysAdmin(client);
const { raw_key: key } = await createApiKey(readContext(systemActor("test")), admin.id, {
  name: "faults",
  scopes: ["svc:system:orgs:read", "svc:system:orgs:write"],
  expires_at: null,
});

/** The app's whole answer, body included, within `boundMs`. */
async function answerWithin(boundMs: number, path: string, init: RequestInit = {}): Promise<Response> {
  const response = await app.fetch(path, { ...init, signal: AbortSignal.timeout(boundMs) });
  return new Response(await response.text(), { status: response.status, headers: response.headers });
}
const call = (path: string, init: RequestInit = {}) =>
  answerWithin(ANSWER_BOUND_MS, path, {
    ...init,
    headers: { "x-api-key": key, "content-type": "application/json", ...init.headers },
  });
const listOrganizations = () => call("/api/v1/organizations");
const createOrganization = (name: string) =>
  call("/api/v1/organizations", { method: "POST", body: JSON.stringify({ name }) });
const ready = () => answerWithin(READY_BOUND_MS, "/api/ready");

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(((await response.json()) as { code: string }).code).toBe("unavailable");
}

/** A read, a write and a readiness probe at once, each answered 503. */
async function expectAllUnavailable(name: string) {
  for (const response of await Promise.all([listOrganizations(), createOrganization(name), ready()]))
    await expectUnavailable(response);
}

/** Ready again within the bound, polled from now; then reads and writes are served. */
async function expectRecovered(name: string) {
  await vi.waitFor(async () => expect((await ready()).status).toBe(200), { timeout: RECOVERY_BOUND_MS, interval: 100 });
  expect((await listOrganizations()).status).toBe(200);
  expect((await createOrganization(name)).status).toBe(201);
}

const outageOrganizations = () => client.organization.count({ where: { name: { startsWith: "during-outage" } } });

/**
 * Locks the organizations table in a transaction of the test's own (on a connection of its own,
 * past the proxy), so that the app's statements on it wait at the server: requests in flight until
 * the test acts, or their statement timeout. Returns the release.
 */
async function lockOrganizations(): Promise<() => Promise<void>> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query("BEGIN; LOCK TABLE organizations IN ACCESS EXCLUSIVE MODE");
  return async () => {
    await holder.query("ROLLBACK");
    await holder.end();
  };
}

/** Until `count` of the app's statements wait at the server for a lock. */
async function untilWaitingForLock(count: number) {
  await vi.waitFor(async () => {
    const [row] = await client.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ${APP_CONNECTIONS} AND wait_event_type = 'Lock'`;
    // At least: a background refresh of the app's cached key may be waiting on the lock too.
    expect(Number(row?.n)).toBeGreaterThanOrEqual(count);
  }, IN_FLIGHT_WAIT);
}

describe("database faults", () => {
  it("serves through the proxy while the database answers", async () => {
    expect((await listOrganizations()).status).toBe(200);
    expect((await ready()).status).toBe(200);
  });

  it("answers 503 when connections are reset under statements in flight, then recovers", async () => {
    const unlock = await lockOrganizations();
    try {
      const inFlight = Promise.all([listOrganizations(), createOrganization("during-outage-reset")]);
      await untilWaitingForLock(2);
      proxy.reset();
      for (const response of await inFlight) await expectUnavailable(response);
    } finally {
      await unlock();
    }
    await expectRecovered("after-reset");
  });

  it("answers 503 when the server terminates the app's connections under statements in flight, then recovers", async () => {
    const unlock = await lockOrganizations();
    try {
      const inFlight = Promise.all([listOrganizations(), createOrganization("during-outage-terminated")]);
      await untilWaitingForLock(2);
      // As an administrator (or a failover) ends them: every connection of the app, busy or idle.
      await client.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${APP_CONNECTIONS}`;
      for (const response of await inFlight) await expectUnavailable(response);
    } finally {
      await unlock();
    }
    await expectRecovered("after-termination");
  });

  it("answers 503 when connections are cut under requests in flight", async () => {
    // A key this app has not seen yet: its lookup is one of the statements in flight.
    const { raw_key: fresh } = await createApiKey(readContext(systemActor("test")), admin.id, {
      name: "fresh",
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
    });
    await proxy.setMode("blackhole");
    const lookup = answerWithin(ANSWER_BOUND_MS, "/api/v1/me", { headers: { "x-api-key": fresh } });
    const inFlight = Promise.all([listOrganizations(), createOrganization("during-outage-cut"), ready(), lookup]);
    // The requests wait on the black hole with their statements sent (one connection each); cutting
    // it closes their connections mid-statement, and the database refuses new ones.
    await vi.waitFor(() => expect(proxy.swallowing()).toBeGreaterThanOrEqual(4), IN_FLIGHT_WAIT);
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
    await expectRecovered("after-outage");
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
