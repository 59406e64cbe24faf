"use client";

import dynamic from "next/dynamic";
import { useState } from "react";
import { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/usage";
import { Segmented } from "@/components/ui/segmented";
import type { Row } from "./usage-bars";

// Requests by outcome, stacked: a key's (its page) or the whole platform's (the overview). The range
// picks the bucket, so a bar is always wide enough to read: the last 24 hours by hour, the last 7
// days by day. Buckets without requests are drawn empty, so the time axis is even. A caption with
// the range's totals follows the chart for everyone.
// The bars are drawn by the chart library (uPlot, see usage-bars.tsx): it is loaded when a chart is
// shown, not with the page (the figures beside it need none of it).
const UsageBars = dynamic(() => import("./usage-bars").then((m) => m.UsageBars), { ssr: false });

const HOUR_MS = 3_600_000;

export type UsageRange = "24h" | "7d";
const RANGES: Record<UsageRange, { label: string; buckets: number; bucketMs: number }> = {
  "24h": { label: "Last 24 hours", buckets: 24, bucketMs: HOUR_MS },
  "7d": { label: "Last 7 days", buckets: 7, bucketMs: 24 * HOUR_MS },
};

type Bucket = { hour: string; outcome: UsageOutcome; count: number };

/**
 * One row per bucket of the range (the last one ending with the current hour), every outcome counted
 * (0 where nothing came); hourly counts older than the range are left out.
 */
export function usageRows(buckets: readonly Bucket[], now: number, range: UsageRange): Row[] {
  const { buckets: count, bucketMs } = RANGES[range];
  const end = now - (now % HOUR_MS) + HOUR_MS;
  const start = end - count * bucketMs;
  const rows: Row[] = Array.from({ length: count }, (_, i) => ({
    hour: new Date(start + i * bucketMs).toISOString(),
    "2xx": 0,
    "4xx": 0,
    "401": 0,
    "403": 0,
    "429": 0,
    "5xx": 0,
  }));
  for (const bucket of buckets) {
    const at = Date.parse(bucket.hour);
    if (at < start || at >= end) continue;
    rows[Math.floor((at - start) / bucketMs)]![bucket.outcome] += bucket.count;
  }
  return rows;
}

export function UsageChart({ buckets, now, label }: { buckets: readonly Bucket[]; now: number; label: string }) {
  const [range, setRange] = useState<UsageRange>("7d");
  const rows = usageRows(buckets, now, range);
  const totals = USAGE_OUTCOMES.map((outcome) => ({
    outcome,
    count: rows.reduce((sum, row) => sum + row[outcome], 0),
  }));
  return (
    <figure aria-label={label} data-testid="usage-chart">
      <Segmented
        legend="Range"
        name={`${label} range`}
        options={(Object.keys(RANGES) as UsageRange[]).map((value) => ({ value, label: RANGES[value].label }))}
        value={range}
        onChange={setRange}
      />
      <div className="mt-3 h-72 w-full" aria-hidden="true">
        <UsageBars rows={rows} daily={range === "7d"} />
      </div>
      <figcaption className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        <span className="sr-only">{label}: </span>
        {RANGES[range].label}, {range === "7d" ? "by day" : "by hour"}:{" "}
        {totals.map(({ outcome, count }, i) => (
          <span key={outcome}>
            {i > 0 && ", "}
            <span data-testid={`usage-total-${outcome}`}>{count.toLocaleString("en")}</span> {outcome}
          </span>
        ))}
        .
      </figcaption>
    </figure>
  );
}
