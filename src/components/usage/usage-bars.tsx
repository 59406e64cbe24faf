"use client";

import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/usage";
import { formatTimestamp } from "@/components/api-keys/format";

// The bars of a usage chart (usage-chart.tsx), in a module of their own so the chart library (uPlot)
// loads only with them. Outcomes are stacked: each series is drawn as the running total up to it,
// tallest first, so each shows above the ones before it. The legend under the chart is ours, in the
// outcomes' order, and shows the pointed bar's counts as a tooltip would.

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

const LEGEND_PX = 28;

/** uPlot's data: the buckets' indexes, then each outcome's running total, the last outcome first. */
function stacked(rows: Row[]): uPlot.AlignedData {
  const totals = USAGE_OUTCOMES.map((_, i) =>
    rows.map((row) => USAGE_OUTCOMES.slice(0, i + 1).reduce((sum, o) => sum + row[o], 0)),
  );
  return [rows.map((_, i) => i), ...totals.reverse()];
}

/** The bars of `rows`, one per day (`daily`) or per hour. */
export function UsageBars({ rows, daily }: { rows: Row[]; daily: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const [at, setAt] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const text = getComputedStyle(el).color;
    const grid = { stroke: "rgba(128, 128, 128, 0.35)", dash: [3, 3], width: 1 };
    const label = (i: number) => {
      const iso = rows[i]?.hour ?? "";
      return daily ? iso.slice(5, 10) : iso.slice(11, 16);
    };
    const size = () => ({ width: el.clientWidth, height: Math.max(el.clientHeight - LEGEND_PX, 100) });
    const chart = new uPlot(
      {
        ...size(),
        legend: { show: false },
        cursor: { y: false, points: { show: false }, drag: { x: false, y: false } },
        scales: {
          x: { time: false, range: [-0.5, rows.length - 0.5] },
          y: { range: (_u, _min, max) => [0, max || 1] },
        },
        axes: [
          {
            stroke: text,
            grid: { show: false },
            ticks: { show: false },
            font: "12px sans-serif",
            splits: () => rows.map((_, i) => i).filter((i) => daily || i % 3 === 0),
            values: (_u, splits) => splits.map(label),
          },
          {
            stroke: text,
            grid,
            ticks: { show: false },
            font: "12px sans-serif",
            size: 48,
            // Whole requests only.
            splits: (_u, _axis, _min, max) => {
              const step = Math.max(1, Math.ceil(max / 5));
              return Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => i * step);
            },
          },
        ],
        series: [
          {},
          ...[...USAGE_OUTCOMES].reverse().map((outcome) => ({
            label: outcome,
            fill: COLORS[outcome],
            stroke: COLORS[outcome],
            width: 0,
            points: { show: false },
            paths: uPlot.paths.bars!({ size: [0.8, 64] }),
          })),
        ],
        hooks: { setCursor: [(u) => setAt(u.cursor.idx ?? null)] },
      },
      stacked(rows),
      el,
    );
    // The chart follows its box's width, as the page's layout does.
    const resize = new ResizeObserver(() => chart.setSize(size()));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [rows, daily]);

  const row = at === null ? undefined : rows[at];
  return (
    <div
      ref={box}
      className="relative h-full w-full"
      data-bars={rows.filter((r) => USAGE_OUTCOMES.some((o) => r[o] > 0)).length}
    >
      <ul className="absolute right-0 bottom-0 left-0 flex flex-wrap justify-center gap-x-4 text-xs">
        {row && <li className="font-medium">{formatTimestamp(row.hour)}:</li>}
        {USAGE_OUTCOMES.map((outcome) => (
          <li key={outcome} className="flex items-center gap-1">
            <span className="inline-block size-3" style={{ background: COLORS[outcome] }} />
            {outcome}
            {row && <span className="font-mono">{row[outcome].toLocaleString("en")}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
