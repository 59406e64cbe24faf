import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { hashKey } from "@/server/auth/api-key-format";
import { readContext } from "@/server/db/context";
import { createApiKey } from "@/server/services/api-keys/service";
import { request, startApp, TEST_AUTH_SECRET, TEST_ENCRYPTION_KEYS, type Caller } from "@/test/app";
import { createSysAdmin, PASSWORD } from "@/test/fixtures";
import { startAppWithMail } from "@/test/mail-app";
import { linkIn } from "@/test/mail-receiver";
import { startOtlpReceiver, type ReceivedSpan } from "@/test/otlp-receiver";
import { consoleSession } from "@/test/suite";
import { startReceiver } from "@/test/webhook-receiver";

// Traces over real HTTP: the built app exports to a real OTLP/HTTP receiver (protobuf here, JSON
// for a second app) with Redis for its rate limits, and its job queue delivering webhooks and email
// to real receivers. A REST call, a tRPC call, failing requests, jobs and a webhook attempt each
// leave the spans an operator reads, joined to the caller's traceparent and to the log lines; no
// secret that passed through the app is in any span.

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

const otlp = await startOtlpReceiver();
const hooks = await startReceiver();
const { client, url, app, mail } = await startAppWithMail({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
  OTEL_BSP_SCHEDULE_DELAY: "100",
  REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  REDIS_KEY_PREFIX: `svc-test-${randomBytes(6).toString("hex")}:`,
  SVC_ALLOW_HTTP_LOOPBACK: "1",
});
const admin = await createSysAdmin(client);
const key = await createApiKey(readContext(systemActor("test")), admin.id, {
  name: "traced",
  scopes: ["svc:system:webhooks:read", "svc:system:webhooks:write", "svc:system:orgs:read", "svc:system:orgs:write"],
  expires_at: null,
  rate_limit: { requests: 10_000, window_seconds: 60 },
});
const asAdmin: Caller = { key: key.raw_key };

/** A caller's trace context: a new trace id and the caller's own span id. */
function callerContext() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const childrenOf = (parent: ReceivedSpan) => otlp.spans.filter((span) => span.parentSpanId === parent.spanId);

/** Secrets that passed through the app in this file, and the key's hash the lookup binds: none may be in a span. */
const secrets: string[] = [
  key.raw_key,
  key.raw_key.slice(12),
  hashKey(key.raw_key),
  PASSWORD,
  TEST_AUTH_SECRET,
  TEST_ENCRYPTION_KEYS.slice(3),
];

describe("a REST call", () => {
  it("is one server span named by its route, continuing the caller's traceparent, with the key stage, the authorization, SQL and Redis under it", async () => {
    const caller = callerContext();
    const response = await app.fetch("/api/v1/me", {
      headers: { "x-api-key": key.raw_key, traceparent: caller.traceparent },
    });
    expect(response.status).toBe(200);
    const server = await otlp.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);
    expect(server).toMatchObject({
      name: "GET /api/v1/me",
      parentSpanId: caller.spanId,
      attributes: {
        "http.request.method": "GET",
        "http.route": "/api/v1/me",
        "svc.operation": "getMe",
        "http.response.status_code": 200,
        "svc.request_id": response.headers.get("x-request-id"),
        "svc.api_key.prefix": key.raw_key.slice(0, 12),
      },
      resource: { "service.name": "svc" },
    });
    await otlp.waitFor((span) => span.parentSpanId === server.spanId && span.name === "authorize");
    const stage = await otlp.waitFor(
      (span) => span.parentSpanId === server.spanId && span.name === "api_key.authenticate",
    );
    expect(stage.attributes["svc.api_key.prefix"]).toBe(key.raw_key.slice(0, 12));
    const authorize = childrenOf(server).find((span) => span.name === "authorize")!;
    expect(authorize.attributes).toMatchObject({ "svc.operation": "getMe", "svc.authorization": "granted" });
    // The key's rate limit is counted in Redis, and the key read from the database on its first use.
    const redis = await otlp.waitFor(
      (span) => span.traceId === caller.traceId && span.attributes["db.system.name"] === "redis",
    );
    expect(redis.kind).toBe(CLIENT);
    const sql = await otlp.waitFor(
      (span) => span.traceId === caller.traceId && typeof span.attributes["db.query.text"] === "string",
    );
    expect(sql.name).toMatch(/^prisma:/);
  });

  it("writes its log line with the trace's and the server span's ids", async () => {
    const caller = callerContext();
    const response = await app.fetch("/api/v1/me", {
      headers: { "x-api-key": key.raw_key, traceparent: caller.traceparent },
    });
    const server = await otlp.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);
    const requestId = response.headers.get("x-request-id");
    const line = app
      .logs()
      .split("\n")
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === "request" && entry.request_id === requestId);
    expect(line).toMatchObject({ trace_id: caller.traceId, span_id: server.spanId });
  });

  it("starts a trace of its own when the traceparent is malformed, oversized or of an unknown version", async () => {
    for (const traceparent of [
      "00-zz-yy-01",
      `00-${"0".repeat(32)}-${"1".repeat(16)}-01`,
      `ff-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`,
      `00-${"a".repeat(5000)}`,
    ]) {
      const response = await app.fetch("/api/v1/me", { headers: { "x-api-key": key.raw_key, traceparent } });
      expect(response.status, traceparent.slice(0, 40)).toBe(200);
      const requestId = response.headers.get("x-request-id");
      const server = await otlp.waitFor((span) => span.attributes["svc.request_id"] === requestId);
      expect(server.parentSpanId).toBe("");
      expect(traceparent).not.toContain(server.traceId);
    }
  });
});

describe("a failing request", () => {
  it("names its problem on the server span, and a refused key's stage holds no part of the key", async () => {
    const caller = callerContext();
    const missing = await app.fetch(`/api/v1/webhook-endpoints/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}`, {
      headers: { "x-api-key": key.raw_key, traceparent: caller.traceparent },
    });
    expect(missing.status).toBe(404);
    const server = await otlp.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);
    expect(server).toMatchObject({
      name: "GET /api/v1/webhook-endpoints/{endpoint_id}",
      attributes: { "http.response.status_code": 404, "svc.problem": "not_found" },
    });

    const refused = callerContext();
    const wrongKey = `cdk_${randomBytes(24).toString("hex")}`;
    secrets.push(wrongKey.slice(4));
    const answer = await app.fetch("/api/v1/me", {
      headers: { "x-api-key": wrongKey, traceparent: refused.traceparent },
    });
    expect(answer.status).toBe(401);
    const refusedServer = await otlp.waitFor((span) => span.traceId === refused.traceId && span.kind === SERVER);
    expect(refusedServer.attributes).toMatchObject({
      "http.response.status_code": 401,
      "svc.problem": "invalid_api_key",
    });
    expect(refusedServer.attributes["svc.api_key.prefix"]).toBeUndefined();
    const stage = await otlp.waitFor(
      (span) => span.traceId === refused.traceId && span.name === "api_key.authenticate",
    );
    expect(stage).toMatchObject({ status: 2, attributes: { "svc.problem": "invalid_api_key" } });
    expect(stage.attributes["svc.api_key.prefix"]).toBeUndefined();
  });

  it("records a denied authorization", async () => {
    const weak = await createApiKey(readContext(systemActor("test")), admin.id, {
      name: "weak",
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
    });
    secrets.push(weak.raw_key);
    const caller = callerContext();
    const answer = await app.fetch("/api/v1/webhook-endpoints", {
      headers: { "x-api-key": weak.raw_key, traceparent: caller.traceparent },
    });
    expect(answer.status).toBe(403);
    const authorize = await otlp.waitFor((span) => span.traceId === caller.traceId && span.name === "authorize");
    expect(authorize).toMatchObject({ status: 2, attributes: { "svc.authorization": "denied" } });
  });
});

describe("a tRPC call", () => {
  it("is one server span named by its procedure, with the operation it served", async () => {
    const session = await consoleSession(app, admin.username);
    secrets.push(
      ...session
        .cookieHeader()
        .split("; ")
        .map((pair) => pair.slice(pair.indexOf("=") + 1)),
    );
    const caller = callerContext();
    const response = await session.fetch("/api/trpc/webhooks.list", { headers: { traceparent: caller.traceparent } });
    expect(response.status).toBe(200);
    const server = await otlp.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);
    expect(server).toMatchObject({
      name: "GET /api/trpc/webhooks.list",
      parentSpanId: caller.spanId,
      attributes: {
        "http.route": "/api/trpc/{procedures}",
        "rpc.system": "trpc",
        "svc.operation": "listWebhookEndpoints",
        "svc.request_id": response.headers.get("x-request-id"),
        "http.response.status_code": 200,
      },
    });
    // Next.js's own spans, which carry the URL, are not sent.
    expect(otlp.spans.filter((span) => span.scope === "next.js")).toEqual([]);
  });
});

describe("a change that sends a webhook", () => {
  it("queues a job that is a trace of its own, linked to the request, whose attempt sends its traceparent", async () => {
    const first = await request<{ id: string; secret: string }>(app, asAdmin, "POST", "/api/v1/webhook-endpoints", {
      url: `${hooks.url}/traced`,
      event_types: ["*"],
    });
    expect(first.status).toBe(201);
    secrets.push(first.body.secret, first.body.secret.slice(6));
    const caller = callerContext();
    // Baggage and trace state a caller sends stay with the request: a receiver gets the job's traceparent only.
    const baggage = `secret=${randomBytes(12).toString("hex")}`;
    secrets.push(baggage);
    const change = await app.fetch("/api/v1/webhook-endpoints", {
      method: "POST",
      headers: {
        "x-api-key": key.raw_key,
        traceparent: caller.traceparent,
        tracestate: "vendor=opaque",
        baggage,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url: `${hooks.url}/second`, event_types: ["api_key.created"] }),
    });
    expect(change.status).toBe(201);
    secrets.push(((await change.json()) as { secret: string }).secret.slice(6));
    const server = await otlp.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);

    const job = await otlp.waitFor(
      (span) => span.kind === CONSUMER && span.links.some((link) => link.spanId === server.spanId),
    );
    expect(job).toMatchObject({
      name: "process webhook-delivery",
      parentSpanId: "",
      attributes: { "messaging.destination.name": "webhook-delivery" },
      links: [{ traceId: caller.traceId, spanId: server.spanId }],
    });
    expect(job.traceId).not.toBe(caller.traceId);
    const attempt = await otlp.waitFor((span) => span.parentSpanId === job.spanId && span.name === "webhook attempt");
    expect(attempt).toMatchObject({
      kind: CLIENT,
      attributes: {
        "svc.webhook.endpoint_id": first.body.id,
        "svc.webhook.event_type": "webhook_endpoint.created",
        "svc.webhook.attempt": 1,
        "http.response.status_code": 204,
      },
    });
    const delivered = hooks.received.find(
      (received) => received.path === "/traced" && received.headers.traceparent?.includes(attempt.traceId),
    );
    expect(delivered?.headers.traceparent).toBe(`00-${attempt.traceId}-${attempt.spanId}-01`);
    expect(delivered?.headers.baggage).toBeUndefined();
    expect(delivered?.headers.tracestate).toBeUndefined();
  });
});

describe("an email a request queued", () => {
  it("is sent in a trace of its own, linked to the request, and its link's token is in no span", async () => {
    const email = `traced${process.pid}@example.test`;
    await client.user.update({ where: { id: admin.id }, data: { email } });
    const session = await consoleSession(app, admin.username);
    const caller = callerContext();
    const sent = await session.fetch("/api/v1/me/email/verify", {
      method: "POST",
      headers: { traceparent: caller.traceparent },
    });
    expect(sent.status).toBe(202);
    const server = await otlp.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);
    // The change's event also goes to the webhook endpoint made above, in a job of its own.
    const job = await otlp.waitFor(
      (span) => span.name === "process email" && span.links.some((link) => link.spanId === server.spanId),
    );
    expect(job).toMatchObject({ kind: CONSUMER, parentSpanId: "", links: [{ traceId: caller.traceId }] });
    await vi.waitFor(() => expect(mail.to(email)).toHaveLength(1), { timeout: 15_000, interval: 100 });
    const link = linkIn(mail.to(email)[0]!, "/console/verify-email/")!;
    secrets.push(link.slice(link.lastIndexOf("/") + 1));
  });
});

describe("what the spans hold", () => {
  it("is no secret that passed through the app, in a path, a query, a body or a header", async () => {
    const planted = `cdk_${randomBytes(24).toString("hex")}`;
    secrets.push(planted.slice(4));
    const traced = callerContext();
    for (const [path, init] of [
      [`/api/v1/webhook-endpoints/${planted}`, {}],
      [`/api/v1/me?token=${planted}`, {}],
      [`/api/trpc/webhooks.list,${planted}`, {}],
      ["/api/v1/webhook-endpoints", { method: "POST", body: JSON.stringify({ url: planted, event_types: ["*"] }) }],
      ["/api/v1/me", { headers: { authorization: `Bearer ${planted}` } }],
    ] as const) {
      const headers = { "x-api-key": key.raw_key, traceparent: traced.traceparent, "content-type": "application/json" };
      const answer = await app.fetch(path, {
        ...init,
        headers: { ...headers, ...("headers" in init ? init.headers : {}) },
      });
      expect(answer.status, path).toBeLessThan(500);
    }
    await vi.waitFor(
      () =>
        expect(otlp.spans.filter((span) => span.traceId === traced.traceId && span.kind === SERVER)).toHaveLength(5),
      { timeout: 15_000, interval: 50 },
    );
    const unknown = otlp.spans.find((span) => span.traceId === traced.traceId && span.attributes["rpc.system"]);
    expect(unknown?.name).toBe("GET /api/trpc/webhooks.list,unknown");
    const raw = otlp.raw();
    expect(otlp.spans.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(raw, secret.slice(0, 6)).not.toContain(secret);
  });

  it("is sent in OTLP/JSON when the protocol says http/json", async () => {
    const json = await startOtlpReceiver();
    const second = await startApp(url, {
      OTEL_EXPORTER_OTLP_ENDPOINT: json.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_SERVICE_NAME: "svc-eu-1",
      SVC_JOBS: "0",
    });
    const caller = callerContext();
    expect((await second.fetch("/api/health", { headers: { traceparent: caller.traceparent } })).status).toBe(200);
    const server = await json.waitFor((span) => span.traceId === caller.traceId && span.kind === SERVER);
    expect(server).toMatchObject({ name: "GET /api/health", resource: { "service.name": "svc-eu-1" } });
    expect(new Set(json.contentTypes)).toEqual(new Set(["application/json"]));
  });
});
