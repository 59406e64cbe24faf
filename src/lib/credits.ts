// When a key's credits refill, shared by the server (which applies refills) and the console (which
// shows the next one). A refill falls due at 00:00 UTC: every day, or each month on its `day`, the
// month's last day when it has fewer days.

/** The most credits a key holds, and the most a refill sets. */
export const MAX_CREDITS = 1_000_000_000_000;
/** Below this share of its refill amount a key's credits are low (api_key.credits_low), unless `low_at` says. */
export const LOW_CREDITS_SHARE = 0.1;
/** How long key metadata may be as JSON, how many top-level properties it has, and how deep it nests. */
export const META_MAX_BYTES = 4096;
export const META_MAX_PROPERTIES = 50;
export const META_MAX_DEPTH = 3;

export const REFILL_INTERVALS = ["daily", "monthly"] as const;
export type RefillInterval = (typeof REFILL_INTERVALS)[number];

export interface Refill {
  interval: RefillInterval;
  /** Monthly only: the day of the month (1–31). */
  day?: number | null;
}

const DAY_MS = 86_400_000;

/** 00:00 UTC of the `day`th of `month` (0-based, may run past either end of `year`), clamped to the month's end. */
function dueInMonth(year: number, month: number, day: number): number {
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(day, last));
}

/** The refill moment the balance of `now` is from: the latest one at or before `now`. */
export function refillPeriodStart(refill: Refill, now: number): number {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (refill.interval === "daily") return today;
  const date = new Date(today);
  const day = refill.day ?? 1;
  const thisMonth = dueInMonth(date.getUTCFullYear(), date.getUTCMonth(), day);
  return thisMonth <= today ? thisMonth : dueInMonth(date.getUTCFullYear(), date.getUTCMonth() - 1, day);
}

/** The first refill moment after `now`. */
export function nextRefillAt(refill: Refill, now: number): number {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (refill.interval === "daily") return today + DAY_MS;
  const date = new Date(today);
  const day = refill.day ?? 1;
  const thisMonth = dueInMonth(date.getUTCFullYear(), date.getUTCMonth(), day);
  return thisMonth > today ? thisMonth : dueInMonth(date.getUTCFullYear(), date.getUTCMonth() + 1, day);
}
