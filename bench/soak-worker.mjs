// The soak's load (bench/soak.ts), in a process of its own so the load generator never shares an
// event loop with the benchmark's sampling: reads a JSON job on stdin, drives a mixed workload with
// autocannon against 127.0.0.1, and prints one JSON result line. The mix: docs/benchmarks.md#soak.

import { drive, percentile, readJob } from "./worker-lib.mjs";

const MAX_SAMPLES = 20_000_000;

const job = await readJob("soak-worker");
if (!(job.duration > 0 && job.duration <= 24 * 3600)) throw new Error("duration must be within (0, 86400] seconds");

const { keys, badKeys, orgIds } = job;
const weights = job.mix; // { read, list, write }, summing to 1
const latencies = new Float64Array(MAX_SAMPLES);
let samples = 0;
let responses = 0;
const statuses = {};
// Responses and 5xx per second of the run, for the time series.
const perSecond = [];
const started = process.hrtime.bigint();
const second = () => Math.floor(Number(process.hrtime.bigint() - started) / 1e9);

let sent = 0;
const kinds = { read: 0, list: 0, write: 0, bad: 0 };
const pick = (list) => list[sent % list.length];

function nextRequest(request) {
  sent += 1;
  if (sent % 100 === 0) {
    kinds.bad += 1;
    return {
      ...request,
      method: "GET",
      path: `/api/v1/organizations/${pick(orgIds)}`,
      headers: { ...request.headers, "x-api-key": pick(badKeys) },
    };
  }
  const headers = { ...request.headers, "x-api-key": pick(keys) };
  // A fixed sequence (golden-ratio steps) spreads the kinds evenly without a random source.
  const draw = (sent * 0.6180339887) % 1;
  if (draw < weights.read) {
    kinds.read += 1;
    return { ...request, method: "GET", path: `/api/v1/organizations/${pick(orgIds)}`, headers };
  }
  if (draw < weights.read + weights.list) {
    kinds.list += 1;
    return { ...request, method: "GET", path: "/api/v1/organizations?limit=20", headers };
  }
  kinds.write += 1;
  return {
    ...request,
    method: "POST",
    path: "/api/v1/organizations",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ name: `soak-${process.pid}-${sent}` }),
  };
}

const instance = drive(
  {
    url: job.url,
    connections: job.connections,
    duration: job.duration,
    requests: [{ method: "GET", path: "/api/health", setupRequest: nextRequest }],
  },
  (result) => {
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const sorted = latencies.subarray(0, samples).sort();
    return {
      seconds: elapsed,
      responses,
      rps: responses / elapsed,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: percentile(sorted, 100),
      statuses,
      kinds,
      perSecond,
      errors: result.errors,
      timeouts: result.timeouts,
    };
  },
);
instance.on("response", (_client, statusCode, _bytes, responseTime) => {
  responses += 1;
  statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  const at = second();
  perSecond[at] ??= { responses: 0, errors5xx: 0 };
  perSecond[at].responses += 1;
  if (statusCode >= 500) perSecond[at].errors5xx += 1;
  if (samples < MAX_SAMPLES) latencies[samples++] = responseTime;
});
