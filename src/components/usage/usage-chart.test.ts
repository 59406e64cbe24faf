import { describe, expect, it } from "vitest";
import { usageRows } from "./usage-chart";

// The usage chart (the overview's and a key's page) picks its bucket from its range: the last 24
// hours by hour, the last 7 days by day, so that a bar is always wide enough to read.

const HOUR_MS = 3_600_000;
// 14:20 UTC: the current hour's bucket is 14:00–15:00.
const now = Date.parse("2026-03-10T14:20:00.000Z");
const hourly = [
  { hour: "2026-03-10T14:00:00.000Z", outcome: "2xx", count: 2 },
  { hour: "2026-03-09T16:00:00.000Z", outcome: "2xx", count: 3 },
  { hour: "2026-03-09T14:00:00.000Z", outcome: "429", count: 4 },
  { hour: "2026-03-03T14:00:00.000Z", outcome: "5xx", count: 9 },
] as const;

const widths = (rows: { hour: string }[]) =>
  new Set(rows.slice(1).map((row, i) => Date.parse(row.hour) - Date.parse(rows[i]!.hour)));

describe("the usage chart's range and bucket", () => {
  it("draws the last 24 hours by hour, ending with the current hour", () => {
    const rows = usageRows(hourly, now, "24h");
    expect(rows).toHaveLength(24);
    expect(widths(rows)).toEqual(new Set([HOUR_MS]));
    expect(rows[0]!.hour).toBe("2026-03-09T15:00:00.000Z");
    expect(rows.at(-1)).toMatchObject({ hour: "2026-03-10T14:00:00.000Z", "2xx": 2 });
    expect(rows.find((row) => row.hour === "2026-03-09T16:00:00.000Z")).toMatchObject({ "2xx": 3 });
    // Older than the range: left out.
    expect(rows.reduce((sum, row) => sum + row["429"] + row["5xx"], 0)).toBe(0);
  });

  it("draws the last 7 days by day, each day the sum of its hours", () => {
    const rows = usageRows(hourly, now, "7d");
    expect(rows).toHaveLength(7);
    expect(widths(rows)).toEqual(new Set([24 * HOUR_MS]));
    // The last day ends with the current hour: both of its hours with requests are in it.
    expect(rows.at(-1)).toMatchObject({ hour: "2026-03-09T15:00:00.000Z", "2xx": 5, "429": 0 });
    expect(rows.at(-2)).toMatchObject({ "429": 4 });
    expect(rows[0]!.hour).toBe("2026-03-03T15:00:00.000Z");
    expect(rows.reduce((sum, row) => sum + row["5xx"], 0)).toBe(0);
  });
});
