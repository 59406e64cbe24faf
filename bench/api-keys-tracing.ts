// The tracing phase of `npm run bench`: GET /api/v1/me with keys against GET /api/health, first with
// tracing off, then with every request traced (always_on) and exported over OTLP/HTTP to a receiver
// in this process on 127.0.0.1. Target with tracing on: me/health ≥ 0.8. See docs/benchmarks.md#api-keys.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { processTree } from "./cpu-time";
import { f, lpad, pad, say, startApp, stopApp } from "./lib";
import { pairedRatio, ROUNDS, runLevel, scenarioFigures, WARMUP_ROUNDS, type Scenario } from "./load";

export const TARGET_TRACED_RATIO = 0.8;

/** A collector that takes every export and keeps only its count and size. */
async function startSink() {
  const received = { requests: 0, bytes: 0 };
  const server = http.createServer((request, response) => {
    request.on("data", (chunk: Buffer) => (received.bytes += chunk.length));
    request.on("end", () => {
      received.requests += 1;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close };
}

async function measureApp(url: string, keys: string[], connections: number[], env: Record<string, string>) {
  const started = await startApp(url, env);
  const scenarios: Scenario[] = [
    { id: "a", label: "GET /api/health (no key)", path: "/api/health", keys: null, expectStatus: 200 },
    { id: "b", label: `GET /api/v1/me, ${keys.length} keys`, path: "/api/v1/me", keys, expectStatus: 200 },
  ];
  const appPids = processTree(started.pid);
  const levels = [];
  for (const n of connections) {
    if (WARMUP_ROUNDS > 0) await runLevel(started.baseUrl, appPids, scenarios, n, WARMUP_ROUNDS);
    say(`[tracing] Measuring at ${n} connections: ${ROUNDS} rounds, alternating a, b…`);
    const load = await runLevel(started.baseUrl, appPids, scenarios, n, ROUNDS);
    const [health, me] = scenarios.map((s) => scenarioFigures(load, s));
    levels.push({
      connections: n,
      health,
      me,
      ratio: pairedRatio(health?.slotRps ?? [], me?.slotRps ?? []),
      valid:
        scenarios.every((s) => (scenarioFigures(load, s).expectedShare ?? 0) >= 0.999) &&
        load.errors + load.timeouts === 0,
    });
  }
  await stopApp();
  return levels;
}

export async function measureTracing(
  url: string,
  keys: string[],
  connections: number[],
  appEnv: Record<string, string>,
) {
  const env = { ...appEnv, REDIS_URL: "" };
  say(`[tracing] Tracing off…`);
  const off = await measureApp(url, keys, connections, env);
  const sink = await startSink();
  say(`[tracing] Tracing on, every request sampled, exported to ${sink.url}…`);
  const on = await measureApp(url, keys, connections, {
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_TRACES_SAMPLER: "always_on",
  });
  await sink.close();
  if (sink.received.requests === 0) throw new Error("tracing on, but no span reached the receiver");
  return {
    off,
    on: on.map((level) => ({ ...level, pass: level.ratio.ratio >= TARGET_TRACED_RATIO })),
    exported: { ...sink.received },
  };
}

export function reportTracing(tracing: Awaited<ReturnType<typeof measureTracing>>) {
  say();
  say(`== tracing: off, then every request traced to an OTLP/HTTP receiver (limits in process) ==`);
  say(
    `${pad("tracing", 9)}${pad("conns", 6)}${pad("scenario", 40)}${lpad("req/s", 9)}${lpad("p50 ms", 9)}${lpad("p99 ms", 9)}`,
  );
  for (const [name, levels] of [
    ["off", tracing.off],
    ["on", tracing.on],
  ] as const)
    for (const level of levels)
      for (const x of [level.health, level.me])
        if (x)
          say(
            `${pad(name, 9)}${pad(String(level.connections), 6)}${pad(x.label, 40)}${lpad(x.rps.toFixed(0), 9)}${lpad(f(x.p50), 9)}${lpad(f(x.p99), 9)}`,
          );
  for (const [index, level] of tracing.on.entries()) {
    const off = tracing.off[index]!;
    const invalid = level.valid && off.valid ? "" : "  (INVALID: unexpected statuses or errors)";
    say(
      `  ${lpad(String(level.connections), 3)} conns: me/health off ${off.ratio.ratio.toFixed(3)}; on ${level.ratio.ratio.toFixed(3)} (target ≥ ${TARGET_TRACED_RATIO}) ${level.pass ? "PASS" : "FAIL"} [${f(level.ratio.p10)} to ${f(level.ratio.p90)}; ${level.ratio.ofTotals.toFixed(3)}]${invalid}`,
    );
  }
  say(`  exported: ${tracing.exported.requests} OTLP requests, ${(tracing.exported.bytes / 1e6).toFixed(1)} MB`);
}
