// `npm run bench:webhooks`: what webhooks cost a change (with a subscribed endpoint vs none) and how
// fast the app delivers them, idle and under load, to a receiver in this process.
// Targets and settings: docs/benchmarks.md#webhooks.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { ensureQueue, startQueue } from "@/server/jobs/queue";
import { OPERATION_GROUPS } from "@/server/operations";
import { invoke } from "@/server/operations/invoke";
import type { AnyOperation } from "@/server/operations/operation";
import { DELIVERY_QUEUE } from "@/server/services/webhooks/outbox";
import { createWebhookEndpoint } from "@/server/services/webhooks/endpoints";
import { readContext } from "@/server/db/context";
import {
  alternating,
  databaseUrl,
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  latencies,
  lpad,
  median,
  pad,
  runBenchmark,
  say,
  signedInClient,
  sleep,
  startApp,
  stopApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_webhooks";
const CALLS = intSetting("BENCH_CALLS", 1000, 10, 100_000);
const IDLE = intSetting("BENCH_IDLE", 60, 5, 10_000);
const LOAD = intSetting("BENCH_LOAD", 600, 10, 100_000);
const ENDPOINTS = intSetting("BENCH_ENDPOINTS", 5, 1, 50);
const COST_TARGET = 1.15;
const RATE_TARGET = 300;
const IDLE_P99_TARGET_MS = 1_000;

interface Receipt {
  lagMs: number;
  at: number;
}

async function receiver(secrets: Map<string, string>) {
  const receipts: Receipt[] = [];
  let bad = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      try {
        const event = new Webhook(secrets.get(req.url ?? "")!).verify(body, headers) as {
          data: { occurred_at?: string };
        };
        if (event.data.occurred_at)
          receipts.push({ lagMs: Date.now() - Date.parse(event.data.occurred_at), at: Date.now() });
      } catch {
        bad++;
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receipts,
    bad: () => bad,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function main() {
  // Before anything reads the environment (it is read once).
  process.env.DATABASE_URL = databaseUrl(DB_NAME);
  process.env.SVC_ALLOW_HTTP_LOOPBACK = "1";
  process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 3).toString("base64")}`;
  const startedAt = new Date();
  const buildId = ensureBuild();
  say(`Webhooks: ${CALLS} cost pairs, ${IDLE} idle changes, ${LOAD} changes × ${ENDPOINTS} endpoints under load.`);
  const url = await freshDatabase(DB_NAME);
  const { client, actor } = await signedInClient(url);
  const quiet = await client.organization.create({ data: { name: "no endpoint" } });
  const watched = await client.organization.create({ data: { name: "watched" } });

  // 1. The cost of a change with an endpoint subscribed vs none.
  const queue = await startQueue(async (boss) => ensureQueue(boss, DELIVERY_QUEUE));
  await createWebhookEndpoint(readContext(actor), watched.id, {
    url: "http://127.0.0.1:9/unused",
    description: null,
    event_types: ["organization.updated"],
    enabled: false,
  });
  await client.webhookEndpoint.updateMany({ data: { enabled: true } });
  await sleep(1_100); // the list of endpoints is read again after a second
  const update = OPERATION_GROUPS.organizations.update as AnyOperation;
  let n = 0;
  const change = (orgId: string) =>
    invoke(update, actor, { params: { org_id: orgId }, query: {}, body: () => ({ description: `b ${++n}` }) });
  for (let i = 0; i < 100; i++) await change(i % 2 ? quiet.id : watched.id);
  const [withEndpoint, without] = await alternating(
    CALLS,
    () => change(watched.id),
    () => change(quiet.id),
  );
  const cost = { with_ms: median(withEndpoint), without_ms: median(without) };
  const ratio = cost.with_ms / cost.without_ms;
  await queue.boss.stop({ graceful: false });
  await client.webhookEndpoint.deleteMany({});
  await client.webhookMessage.deleteMany({});

  // 2. Delivery by the app.
  const secrets = new Map<string, string>();
  const sink = await receiver(secrets);
  const app = await startApp(url, {
    SVC_ALLOW_HTTP_LOOPBACK: "1",
    DATABASE_POOL_MAX: "10",
    SVC_ENCRYPTION_KEYS: process.env.SVC_ENCRYPTION_KEYS!,
  });
  for (let i = 0; i < ENDPOINTS; i++) {
    const endpoint = await createWebhookEndpoint(readContext(actor), null, {
      url: `${sink.url}/e${i}`,
      description: null,
      event_types: ["organization.updated"],
      enabled: i === 0,
    });
    secrets.set(`/e${i}`, endpoint.secret);
  }
  const key = await (
    await import("@/server/services/api-keys/service")
  ).createApiKey(readContext(actor), actor.userId, { name: "bench", scopes: ["svc:org:write"], expires_at: null });
  const patch = (orgId: string) =>
    fetch(`${app.baseUrl}/api/v1/organizations/${orgId}`, {
      method: "PATCH",
      headers: { "x-api-key": key.raw_key, "content-type": "application/json" },
      body: JSON.stringify({ description: `d ${++n}` }),
    }).then((r) => r.text());
  await sleep(1_500);
  // Idle: one change at a time, spaced, to one endpoint.
  for (let i = 0; i < IDLE; i++) {
    await patch(watched.id);
    await sleep(150);
  }
  await sleep(2_000);
  const idle = latencies(sink.receipts.map((r) => r.lagMs));
  // Under load: every endpoint on, many changes at once.
  await client.webhookEndpoint.updateMany({ data: { enabled: true } });
  await sleep(1_500);
  sink.receipts.length = 0;
  const loadStarted = Date.now();
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; i < LOAD; i++) {
    const p = patch(watched.id).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 16) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const expected = LOAD * ENDPOINTS;
  const deadline = Date.now() + 120_000;
  while (sink.receipts.length < expected && Date.now() < deadline) await sleep(100);
  const last = Math.max(...sink.receipts.map((r) => r.at));
  const rate = sink.receipts.length / ((last - loadStarted) / 1000);
  const loaded = latencies(sink.receipts.map((r) => r.lagMs));
  await stopApp();
  await sink.close();

  say();
  say(
    `${pad("mutation cost (median)", 34)}${lpad("endpoint ms", 13)}${lpad("none ms", 10)}${lpad("ratio", 8)}  target ≤ ${COST_TARGET}×`,
  );
  say(
    `${pad("updateOrganization", 34)}${lpad(f(cost.with_ms, 3), 13)}${lpad(f(cost.without_ms, 3), 10)}${lpad(f(ratio), 8)}  ${ratio <= COST_TARGET ? "met" : "MISSED"}`,
  );
  say(
    `lag idle (commit → receipt): p50 ${f(idle.p50, 0)} ms, p99 ${f(idle.p99, 0)} ms (target p99 ≤ ${IDLE_P99_TARGET_MS} ms: ${idle.p99 <= IDLE_P99_TARGET_MS ? "met" : "MISSED"})`,
  );
  say(
    `under load: ${sink.receipts.length}/${expected} delivered, ${f(rate, 0)} deliveries/s (target ≥ ${RATE_TARGET}: ${rate >= RATE_TARGET ? "met" : "MISSED"}), lag p50 ${f(loaded.p50, 0)} ms, p99 ${f(loaded.p99, 0)} ms`,
  );
  if (sink.bad() > 0) say(`${sink.bad()} requests failed signature verification`);
  say();
  say(
    `Results: ${await writeResults("webhooks", startedAt, {
      build: buildId,
      cost: { ...cost, ratio, target: COST_TARGET },
      idle,
      load: { delivered: sink.receipts.length, expected, per_second: rate, lag: loaded },
      bad_signatures: sink.bad(),
    })}`,
  );
  await client.$disconnect();
}

await runBenchmark(main, [DB_NAME]);
