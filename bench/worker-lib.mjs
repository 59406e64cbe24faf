// What the load workers (load-worker.mjs, soak-worker.mjs) share: their job from stdin, and a
// percentile of sorted latencies.

export async function readJob() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** Nearest-rank percentile of ascending values; null for none. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
