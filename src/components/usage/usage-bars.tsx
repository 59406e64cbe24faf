"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/usage";
import { formatTimestamp } from "@/components/api-keys/format";

// The bars of a usage chart (usage-chart.tsx), in a module of their own so that the chart library
// is loaded only with them.

const COLORS: Record<UsageOutcome, string> = {
  "2xx": "#16a34a",
  "4xx": "#f59e0b",
  "401": "#f97316",
  "403": "#dc2626",
  "429": "#7c3aed",
  "5xx": "#475569",
};

export type Row = { hour: string } & Record<UsageOutcome, number>;

export function UsageBars({ rows }: { rows: Row[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="hour" tickFormatter={(iso: string) => iso.slice(5, 10)} interval={23} tick={{ fontSize: 12 }} />
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
