"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/usage";
import { formatTimestamp } from "@/components/api-keys/format";

// The bars of a usage chart (usage-chart.tsx), in a module of their own so that the chart library
// is loaded only with them.

// A palette readers with any common colour-vision deficiency tell apart (Okabe and Ito's): the
// refusals (401, 403, 429) differ in hue and lightness from each other and from other 4xx answers.
const COLORS: Record<UsageOutcome, string> = {
  "2xx": "#009e73",
  "4xx": "#e69f00",
  "401": "#56b4e9",
  "403": "#d55e00",
  "429": "#cc79a7",
  "5xx": "#8c8c8c",
};

export type Row = { hour: string } & Record<UsageOutcome, number>;

/** The bars of `rows`, one per day (`daily`) or per hour. */
export function UsageBars({ rows, daily }: { rows: Row[]; daily: boolean }) {
  // The chart is hidden from screen readers (its caption says the figures): nothing in it takes focus.
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 8, left: 0 }} accessibilityLayer={false}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis
          dataKey="hour"
          tickFormatter={(iso: string) => (daily ? iso.slice(5, 10) : iso.slice(11, 16))}
          interval={daily ? 0 : 3}
          tick={{ fontSize: 12 }}
        />
        <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={48} />
        <Tooltip labelFormatter={(iso) => formatTimestamp(String(iso))} />
        <Legend />
        {USAGE_OUTCOMES.map((outcome) => (
          <Bar key={outcome} dataKey={outcome} stackId="requests" fill={COLORS[outcome]} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
