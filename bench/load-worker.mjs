// One load round, run in its own process by bench/api-keys.ts so that the load generator never
// shares an event loop with the benchmark's bookkeeping. Reads a JSON job on stdin, drives
// autocannon against 127.0.0.1 only, and prints one JSON result line on stdout.
//
// Latencies are taken from autocannon's per-response event in fractional milliseconds (its own
// histogram keeps whole milliseconds), for every status: the unknown-key scenario answers 401.
// Each connection's first response is left out of them (see below).

import autocannon from "autocannon";
import { percentile, readJob } from "./worker-lib.mjs";

const MAX_SAMPLES = 5_000_000;


function histogram(sorted) {
  const counts = {};
  for (const ms of sorted) {
    const bucket = Math.round(ms * 10);
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return counts;
}

const job = await readJob();
const url = new URL(job.url);
if (url.hostname !== "127.0.0.1") throw new Error(`load-worker only targets 127.0.0.1, not ${url.hostname}`);
if (!(job.duration > 0 && job.duration <= 120)) throw new Error("duration must be within (0, 120] seconds");
if (!(job.connections >= 1 && job.connections <= 1000)) throw new Error("connections must be within [1, 1000]");

const latencies = new Float64Array(MAX_SAMPLES);
let samples = 0;
let responses = 0;
const statuses = {};
// Keys are handed out round-robin across all connections (one shared counter), so concurrent
// requests carry different keys, as many independent clients would. Every scenario builds its
// requests through the same setupRequest, with or without a key, so the generator's cost per
// request is the same for all of them.
const keys = Array.isArray(job.keys) && job.keys.length > 0 ? job.keys : null;
let sent = 0;
const requests = [
  {
    method: "GET",
    path: job.path,
    setupRequest: (request) => {
      const key = keys ? keys[sent % keys.length] : null;
      sent += 1;
      return key === null ? request : { ...request, headers: { ...request.headers, "x-api-key": key } };
    },
  },
];

const started = process.hrtime.bigint();
const instance = autocannon(
  {
    url: job.url,
    connections: job.connections,
    duration: job.duration,
    timeout: 10,
    requests,
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false,
  },
  (error, result) => {
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    if (error) {
      process.stdout.write(`${JSON.stringify({ error: String(error.message ?? error) })}\n`);
      process.exit(1);
    }
    const sorted = latencies.subarray(0, samples).sort();
    const seconds = result.duration > 0 ? result.duration : elapsed;
    process.stdout.write(
      `${JSON.stringify({
        seconds,
        responses,
        rps: responses / seconds,
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p99: percentile(sorted, 99),
        max: percentile(sorted, 100),
        // Counts per 0.1 ms, so the bench can pool the rounds of a scenario into one distribution.
        histogram: histogram(sorted),
        statuses,
        errors: result.errors,
        timeouts: result.timeouts,
        keysSent: keys ? Math.min(keys.length, sent) : 0,
        firstResponses,
        cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
        autocannon: { rpsAverage: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 },
      })}\n`,
    );
    process.exit(0);
  },
);
// A connection's first response also waited for the connection to be accepted, and a busy Node.js
// server accepts one new connection per turn of its event loop: the last of 50 connections opened
// at once waits out dozens of turns (up to a second and a half here), whatever the route. So latency
// is that of requests on open connections: each connection's first response counts in throughput
// and statuses, not in the latency figures.
const connected = new WeakSet();
let firstResponses = 0;
instance.on("response", (client, statusCode, _bytes, responseTime) => {
  responses += 1;
  statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  if (!connected.has(client)) {
    connected.add(client);
    firstResponses += 1;
    return;
  }
  if (samples < MAX_SAMPLES) latencies[samples++] = responseTime;
});
