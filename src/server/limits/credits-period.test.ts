import { describe, expect, it } from "vitest";
import { refillPeriodStart, type Refill } from "@/lib/credits";
import { testDatabase } from "@/test/database";

// Refills are applied by the database (svc_credits_period_start) and shown by the app
// (refillPeriodStart): the two must name the same moment, or a key would refill on a day its page
// does not say.

const { client } = await testDatabase();

const DAY_MS = 86_400_000;
// Every day of 2027 and 2028 (a leap year) at a moment just before midnight, and a few at midnight.
const moments = Array.from(
  { length: 731 },
  (_, i) => Date.UTC(2027, 0, 1) + i * DAY_MS + (i % 3 === 0 ? 0 : DAY_MS - 1),
);
const refills: Refill[] = [
  { interval: "daily" },
  ...[1, 15, 28, 29, 30, 31].map((day) => ({ interval: "monthly" as const, day })),
];

describe("svc_credits_period_start", () => {
  it.each(refills)("agrees with refillPeriodStart for %o on every day of two years", async (refill) => {
    const rows = await client.$queryRaw<{ at: Date; start: Date }[]>`
      SELECT at, svc_credits_period_start(${refill.interval}, ${refill.day ?? null}::integer, at) AS start
      FROM unnest(${moments.map((m) => new Date(m))}::timestamptz[]) AS at`;
    const differing = rows
      .filter((row) => row.start.getTime() !== refillPeriodStart(refill, row.at.getTime()))
      .map((row) => row.at.toISOString());
    expect(differing).toEqual([]);
    expect(rows).toHaveLength(moments.length);
  });

  it("is the same whatever the session's time zone", async () => {
    const [row] = await client.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL TIME ZONE 'Pacific/Kiritimati'`;
      // Compared in SQL: the driver reads a moment in the session's zone.
      return tx.$queryRaw<{ february: boolean }[]>`
        SELECT svc_credits_period_start('monthly', 31, '2027-03-01T05:00:00Z'::timestamptz)
          = '2027-02-28T00:00:00Z'::timestamptz AS february`;
    });
    expect(row!.february).toBe(true);
  });
});
