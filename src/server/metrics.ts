import "server-only";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { bookkeepingBacklog } from "@/server/db/bookkeeping";
import { poolUsage } from "@/server/db/client";
import { queueDepth } from "@/server/jobs/queue";
import { limiterStore } from "@/server/limits/store";
import { processState } from "@/server/process-state";

// The process's metrics in Prometheus' text format (GET /api/metrics): requests by route template,
// method and status with their latency, how API keys fare at authentication, 429s, the database
// pool, the key cache, the bookkeeping backlog, and Node.js' own (memory, event loop, GC).

export interface Metrics {
  registry: Registry;
  requests: Counter<"route" | "method" | "status">;
  duration: Histogram<"route" | "method">;
  keyAuthentications: Counter<"outcome">;
  rateLimited: Counter<"limit">;
  keyCache: Counter<"result">;
  webhookDeliveries: Counter<"outcome">;
  webhookLag: Histogram;
}

function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_" });
  // These gauges are sums of the same name's gauge by type, and a gauge named `_total` reads as a
  // counter (promtool refuses it): sum(svc_nodejs_active_handles) says the same.
  for (const name of ["active_handles_total", "active_requests_total", "active_resources_total"])
    registry.removeSingleMetric(`svc_nodejs_${name}`);
  const registers = [registry];
  new Gauge({
    name: "svc_db_pool_connections",
    help: "Database pool connections of this process, by state (waiting: requests waiting for one).",
    labelNames: ["state"],
    registers,
    collect() {
      const usage = poolUsage();
      if (!usage) return;
      this.set({ state: "in_use" }, usage.total - usage.idle);
      this.set({ state: "idle" }, usage.idle);
      this.set({ state: "waiting" }, usage.waiting);
    },
  });
  new Gauge({
    name: "svc_bookkeeping_backlog",
    help: "Best-effort last_used_at / last_accessed_at writes waiting for the next flush.",
    registers,
    collect() {
      this.set(bookkeepingBacklog());
    },
  });
  new Gauge({
    name: "svc_rate_limit_shared",
    help: "1 while rate-limit counters are shared through Redis; 0 while they are counted in this process (no REDIS_URL, or Redis away).",
    registers,
    collect() {
      this.set(limiterStore().backend() === "redis" ? 1 : 0);
    },
  });
  new Gauge({
    name: "svc_webhook_queue_jobs",
    help: "Webhook delivery jobs in the queue (all processes), by state: queued (waiting, retries included) or active, as the queue last counted them.",
    labelNames: ["state"],
    registers,
    async collect() {
      const depth = await queueDepth("webhook-delivery");
      if (!depth) return;
      this.set({ state: "queued" }, depth.queued);
      this.set({ state: "active" }, depth.active);
    },
  });
  return {
    registry,
    requests: new Counter({
      name: "svc_http_requests_total",
      help: "REST requests answered, by route template, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
    }),
    duration: new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "Time to answer a REST request, by route template and method.",
      labelNames: ["route", "method"],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    keyAuthentications: new Counter({
      name: "svc_api_key_authentications_total",
      help: "API keys presented, by outcome: accepted, invalid, expired, revoked, ip_not_allowed (used from outside its networks), or unavailable (the database did not answer).",
      labelNames: ["outcome"],
      registers,
    }),
    rateLimited: new Counter({
      name: "svc_rate_limited_total",
      help: "Requests refused for going over a limit (429, or a refused sign-in), by limit: key (its rate limit), auth_failures (per client address), address (a route's calls per address), sign_in (failed sign-ins and second-factor codes) or credits (a key with no credits left).",
      labelNames: ["limit"],
      registers,
    }),
    keyCache: new Counter({
      name: "svc_api_key_cache_total",
      help: "API key lookups by how the key cache answered: hit, stale (served while refreshed), miss, or bypass (not trusted while the invalidation listener is down).",
      labelNames: ["result"],
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "svc_webhook_deliveries_total",
      help: "Webhook delivery attempts made by this process, by outcome: delivered, retried (failed, another attempt queued), failed (out of attempts) or dropped (endpoint disabled or deleted).",
      labelNames: ["outcome"],
      registers,
    }),
    webhookLag: new Histogram({
      name: "svc_webhook_delivery_lag_seconds",
      help: "From the commit of an event to its delivery (a 2xx answer), for deliveries made by this process.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 3600],
      registers,
    }),
  };
}

// One registry per process, made when first asked for.
export const metrics = (): Metrics => processState("metrics", createMetrics);
