// What the load workers (load-worker.mjs, soak-worker.mjs) share: their job from stdin, autocannon
// driven quietly with one JSON line of result, and a percentile of sorted latencies.

import autocannon from "autocannon";

/** The job on stdin, its target checked: 127.0.0.1 only, 1 to 1000 connections. */
export async function readJob(worker) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const { hostname } = new URL(job.url);
  if (hostname !== "127.0.0.1") throw new Error(`${worker} only targets 127.0.0.1, not ${hostname}`);
  if (!(job.connections >= 1 && job.connections <= 1000)) throw new Error("connections must be within [1, 1000]");
  return job;
}

/**
 * Drives autocannon with these options (10 s timeout, nothing rendered); when it is done, prints
 * `report(result)` as one JSON line and exits 0, or prints the error and exits 1. Returns the
 * instance, for its per-response events.
 */
export function drive(options, report) {
  const quiet = { timeout: 10, renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false };
  return autocannon({ ...options, ...quiet }, (error, result) => {
    if (error) {
      process.stdout.write(`${JSON.stringify({ error: String(error.message ?? error) })}\n`);
      process.exit(1);
    }
    process.stdout.write(`${JSON.stringify(report(result))}\n`);
    process.exit(0);
  });
}

/** Nearest-rank percentile of ascending values; null for none. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
