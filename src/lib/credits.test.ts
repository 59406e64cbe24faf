import { describe, expect, it } from "vitest";
import { nextRefillAt, refillPeriodStart } from "./credits";

// When a key's credits refill: 00:00 UTC every day, or each month on its day (a month's last day
// when it has fewer). The balance a request meets is the one of the latest refill at or before it.

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("credit refills", () => {
  it("fall due daily at 00:00 UTC", () => {
    const daily = { interval: "daily" as const };
    expect(iso(refillPeriodStart(daily, at("2026-12-03T23:59:59.999Z")))).toBe("2026-12-03T00:00:00.000Z");
    expect(iso(refillPeriodStart(daily, at("2026-12-04T00:00:00.000Z")))).toBe("2026-12-04T00:00:00.000Z");
    expect(iso(nextRefillAt(daily, at("2026-12-31T12:00:00Z")))).toBe("2027-01-01T00:00:00.000Z");
  });

  it("fall due monthly on the day, before and after it in the month", () => {
    const on15th = { interval: "monthly" as const, day: 15 };
    expect(iso(refillPeriodStart(on15th, at("2026-12-14T10:00:00Z")))).toBe("2026-11-15T00:00:00.000Z");
    expect(iso(refillPeriodStart(on15th, at("2026-12-15T00:00:00Z")))).toBe("2026-12-15T00:00:00.000Z");
    expect(iso(nextRefillAt(on15th, at("2026-12-14T10:00:00Z")))).toBe("2026-12-15T00:00:00.000Z");
    expect(iso(nextRefillAt(on15th, at("2026-12-15T00:00:00Z")))).toBe("2027-01-15T00:00:00.000Z");
  });

  it("fall on a short month's last day, and back on the day the month after", () => {
    const on31st = { interval: "monthly" as const, day: 31 };
    expect(iso(nextRefillAt(on31st, at("2027-02-01T00:00:00Z")))).toBe("2027-02-28T00:00:00.000Z");
    expect(iso(nextRefillAt(on31st, at("2028-02-10T00:00:00Z")))).toBe("2028-02-29T00:00:00.000Z");
    expect(iso(refillPeriodStart(on31st, at("2027-03-30T08:00:00Z")))).toBe("2027-02-28T00:00:00.000Z");
    expect(iso(nextRefillAt(on31st, at("2027-03-30T08:00:00Z")))).toBe("2027-03-31T00:00:00.000Z");
    expect(iso(nextRefillAt(on31st, at("2027-04-30T00:00:00Z")))).toBe("2027-05-31T00:00:00.000Z");
  });

  it("cross the year both ways", () => {
    const on1st = { interval: "monthly" as const, day: 1 };
    expect(iso(refillPeriodStart(on1st, at("2027-01-01T00:00:00Z")))).toBe("2027-01-01T00:00:00.000Z");
    expect(iso(nextRefillAt(on1st, at("2026-12-31T23:59:59Z")))).toBe("2027-01-01T00:00:00.000Z");
    const on20th = { interval: "monthly" as const, day: 20 };
    expect(iso(refillPeriodStart(on20th, at("2027-01-05T00:00:00Z")))).toBe("2026-12-20T00:00:00.000Z");
  });

  it("default a monthly refill without a day to the 1st", () => {
    expect(iso(refillPeriodStart({ interval: "monthly" }, at("2026-12-03T09:00:00Z")))).toBe(
      "2026-12-01T00:00:00.000Z",
    );
  });
});
