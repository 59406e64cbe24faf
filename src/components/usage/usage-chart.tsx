"use client";

import dynamic from "next/dynamic";
import { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/usage";
import type { Row } from "./usage-bars";

// Requests per hour by outcome, stacked, over the last 7 days: a key's (its page) or the whole
// platform's (the overview). Hours without requests are drawn as empty bars, so the time axis is
// even. A table of the same figures follows the chart for screen readers.
// The bars are drawn by the chart library, the heaviest script of the console: it is loaded when a
// chart is shown, not with the page (the figures beside it need none of it).
const UsageBars = dynamic(() => import("./usage-bars").then((m) => m.UsageBars), { ssr: false });

const HOUR_MS = 3_600_000;
const HOURS = 7 * 24;

/** One row per hour of the last 7 days (up to `now`), every outcome counted (0 where nothing came). */
export function hourlyRows(
  buckets: readonly { hour: string; outcome: UsageOutcome; count: number }[],
  now: number,
): Row[] {
  const last = now - (now % HOUR_MS);
  const rows = new Map<number, Row>();
  for (let i = HOURS - 1; i >= 0; i--) {
    const hour = last - i * HOUR_MS;
    rows.set(hour, { hour: new Date(hour).toISOString(), "2xx": 0, "4xx": 0, "401": 0, "403": 0, "429": 0, "5xx": 0 });
  }
  for (const bucket of buckets) {
    const row = rows.get(Date.parse(bucket.hour));
    if (row) row[bucket.outcome] += bucket.count;
  }
  return [...rows.values()];
}

export function UsageChart({
  buckets,
  now,
  label,
}: {
  buckets: readonly { hour: string; outcome: UsageOutcome; count: number }[];
  now: number;
  label: string;
}) {
  const rows = hourlyRows(buckets, now);
  const totals = USAGE_OUTCOMES.map((outcome) => ({
    outcome,
    count: rows.reduce((sum, row) => sum + row[outcome], 0),
  }));
  return (
    <figure aria-label={label} data-testid="usage-chart">
      <div className="h-72 w-full" aria-hidden="true">
        <UsageBars rows={rows} />
      </div>
      <figcaption className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        <span className="sr-only">{label}: </span>
        Last 7 days:{" "}
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
