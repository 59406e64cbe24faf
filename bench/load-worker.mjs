// The load of one connection level for bench/api-keys.ts, in a process of its own so the load
// generator never shares an event loop with the benchmark's bookkeeping: reads a JSON job on stdin,
// drives autocannon against 127.0.0.1 in alternating slots, and prints one JSON result line.
// Latencies come from autocannon's per-response event, in fractional ms (its histogram keeps whole
// ms). How slots are laid out and measured: docs/benchmarks.md#api-keys.

import { readFileSync } from "node:fs";
import { drive, readJob } from "./worker-lib.mjs";

const job = await readJob("load-worker");
if (!(job.slotMs >= 100 && job.settleMs >= 0 && job.settleMs < job.slotMs))
  throw new Error("slotMs ≥ 100 and 0 ≤ settleMs < slotMs");
if (!(job.clockTicks > 0)) throw new Error("clockTicks: /proc's clock ticks per second");
if (!(Array.isArray(job.scenarios) && job.scenarios.length >= 1)) throw new Error("scenarios: at least one");
const rounds = job.rounds;
const slotCount = rounds * job.scenarios.length;
if (!(Number.isInteger(rounds) && rounds >= 1 && (slotCount * job.slotMs) / 1000 <= 1_800))
  throw new Error("rounds: at least one, at most half an hour of slots");

/** The scenario of slot `index` (0-based): round by round, every other round in reverse order. */
function scenarioOfSlot(index) {
  const round = Math.floor(index / job.scenarios.length);
  const position = index % job.scenarios.length;
  return round % 2 === 0 ? position : job.scenarios.length - 1 - position;
}

const scenarios = job.scenarios.map((s, index) => ({
  index,
  id: s.id,
  path: s.path,
  keys: Array.isArray(s.keys) && s.keys.length > 0 ? s.keys : null,
  random: s.random === true,
  verify: s.verify ?? null,
  sent: 0,
  responses: 0,
  statuses: {},
  // Counts per 0.1 ms, so the bench can pool the scenario's latencies into one distribution.
  histogram: {},
  firstResponses: 0,
}));
const slots = Array.from({ length: slotCount }, (_, index) => ({
  scenario: scenarioOfSlot(index),
  responses: 0,
  cpuMs: null,
}));

/** CPU time of the app's processes so far, in ms (utime + stime of every thread); null if unreadable. */
function appCpuMs() {
  try {
    let ticks = 0;
    for (const pid of job.appPids ?? []) {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1000) / job.clockTicks;
  } catch {
    return null;
  }
}

let started = 0;
const slotAt = (now) => Math.floor((now - started) / job.slotMs);

// The app's CPU over each slot's window, for information: read at the window's start and end by
// timers, which may fire a few ms late under load.
function watchCpu(index) {
  if (index >= slotCount) return;
  const windowStart = started + index * job.slotMs + job.settleMs;
  const windowEnd = started + (index + 1) * job.slotMs;
  setTimeout(
    () => {
      const before = appCpuMs();
      setTimeout(
        () => {
          const after = appCpuMs();
          if (before !== null && after !== null) slots[index].cpuMs = after - before;
          watchCpu(index + 1);
        },
        Math.max(0, windowEnd - performance.now()),
      );
    },
    Math.max(0, windowStart - performance.now()),
  );
}

// Each request is built for the scenario of the slot it is sent in; its context (one per
// connection, one request in flight each) says which, until its response has been counted. Keys are
// handed out round-robin within a scenario across all connections, so concurrent requests carry
// different keys, as many independent clients would (or drawn at random, where a scenario says so).
// Every scenario builds its requests through this same function, so the generator's cost per
// request is the same for all of them.
let answered = null;
const requests = [
  {
    method: "GET",
    path: scenarios[0].path,
    setupRequest: (request, context) => {
      const slot = Math.max(0, Math.min(slotCount - 1, slotAt(performance.now())));
      const scenario = scenarios[slots[slot].scenario];
      context.scenario = scenario;
      const key = scenario.keys
        ? scenario.keys[
            scenario.random ? Math.floor(Math.random() * scenario.keys.length) : scenario.sent % scenario.keys.length
          ]
        : null;
      scenario.sent += 1;
      // A verification: the verifier's key in the header, the key under test in the body.
      if (scenario.verify !== null) {
        return {
          ...request,
          method: "POST",
          path: scenario.path,
          headers: { ...request.headers, "x-api-key": scenario.verify.key, "content-type": "application/json" },
          body: JSON.stringify({ key, ...scenario.verify.body }),
        };
      }
      const headers = key === null ? request.headers : { ...request.headers, "x-api-key": key };
      return { ...request, method: "GET", path: scenario.path, headers, body: undefined };
    },
    onResponse: (_status, _body, context) => {
      answered = context.scenario;
    },
  },
];

started = performance.now();
const instance = drive(
  {
    url: job.url,
    connections: job.connections,
    // One slot more than measured, so the last measured slot is not cut short by the stop.
    duration: ((slotCount + 1) * job.slotMs) / 1000,
    requests,
  },
  (result) => {
    const cpu = process.cpuUsage();
    return {
      seconds: (performance.now() - started) / 1000,
      scenarios: Object.fromEntries(
        scenarios.map((s) => [
          s.id,
          {
            responses: s.responses,
            statuses: s.statuses,
            histogram: s.histogram,
            firstResponses: s.firstResponses,
            keysSent: s.keys ? Math.min(s.keys.length, s.sent) : 0,
            slots: slots
              .filter((slot) => slot.scenario === s.index)
              .map((slot) => ({ responses: slot.responses, cpuMs: slot.cpuMs })),
          },
        ]),
      ),
      windowMs: job.slotMs - job.settleMs,
      errors: result.errors,
      timeouts: result.timeouts,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  },
);
watchCpu(0);

// A connection's first response also waited for the connection to be accepted, and a busy Node.js
// server accepts one new connection per turn of its event loop: the last of 50 connections opened
// at once waits out dozens of turns (up to a second and a half here), whatever the route. So latency
// is that of requests on open connections: each connection's first response counts in throughput
// and statuses, not in the latency figures.
const connected = new WeakSet();
instance.on("response", (client, statusCode, _bytes, responseTime) => {
  const scenario = answered;
  if (scenario === null) return;
  answered = null;
  const now = performance.now();
  scenario.responses += 1;
  scenario.statuses[statusCode] = (scenario.statuses[statusCode] ?? 0) + 1;
  const slot = slotAt(now);
  if (
    slot >= 0 &&
    slot < slotCount &&
    slots[slot].scenario === scenario.index &&
    now - started - slot * job.slotMs >= job.settleMs
  ) {
    slots[slot].responses += 1;
  }
  if (!connected.has(client)) {
    connected.add(client);
    scenario.firstResponses += 1;
    return;
  }
  const bucket = Math.round(responseTime * 10);
  scenario.histogram[bucket] = (scenario.histogram[bucket] ?? 0) + 1;
});
