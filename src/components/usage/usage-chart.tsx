"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/schemas/api-keys";
import { formatTimestamp } from "@/components/api-keys/format";

// Requests per hour by outcome, stacked, over the last 7 days: a key's (its page) or the whole
// platform's (the overview). Hours without requests are drawn as empty bars, so the time axis is
// even. A table of the same figures follows the chart for screen readers.

const HOUR_MS = 3_600_000;
const HOURS = 7 * 24;

const COLORS: Record<UsageOutcome, string> = {
  "2xx": "#16a34a",
  "4xx": "#f59e0b",
  "401": "#f97316",
  "403": "#dc2626",
  "429": "#7c3aed",
  "5xx": "#475569",
};

type Row = { hour: string } & Record<UsageOutcome, number>;

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
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="hour"
              tickFormatter={(iso: string) => iso.slice(5, 10)}
              interval={23}
              tick={{ fontSize: 12 }}
            />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={48} />
            <Tooltip labelFormatter={(iso) => formatTimestamp(String(iso))} />
            <Legend />
            {USAGE_OUTCOMES.map((outcome) => (
              <Bar
                key={outcome}
                dataKey={outcome}
                stackId="requests"
                fill={COLORS[outcome]}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
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
