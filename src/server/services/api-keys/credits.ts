import "server-only";
import { MAX_CREDITS, nextRefillAt, refillPeriodStart, type RefillInterval } from "@/lib/credits";
import type { ChangeCreditsInput, CreditsInput } from "@/lib/schemas/api-keys";

// A key's credits as stored and as answered: the balance, its refill, and the columns a change
// writes. The balance is spent by the key stage (limits/credits.ts); here it is set and shown.

export const CREDIT_FIELDS = {
  credits_remaining: true,
  credits_refill_amount: true,
  credits_refill_interval: true,
  credits_refill_day: true,
  credits_low_threshold: true,
  credits_refilled_at: true,
} as const;

export interface CreditColumns {
  credits_remaining: bigint | null;
  credits_refill_amount: bigint | null;
  credits_refill_interval: string | null;
  credits_refill_day: number | null;
  credits_low_threshold: bigint | null;
  credits_refilled_at: Date | null;
}

export interface Credits {
  remaining: number;
  refill: { amount: number; interval: RefillInterval; day: number | null } | null;
  low_at: number | null;
  next_refill_at: Date | null;
}

function refillOf(row: CreditColumns): Credits["refill"] {
  const interval = row.credits_refill_interval;
  if (row.credits_refill_amount === null || (interval !== "daily" && interval !== "monthly")) return null;
  return { amount: Number(row.credits_refill_amount), interval, day: row.credits_refill_day };
}

/** The balance at `now`, a refill that fell due applied; the moment it is from, when that refill is new. */
function balanceAt(row: CreditColumns, now: number): { remaining: number; refilledAt?: Date } {
  const refill = refillOf(row);
  const remaining = Number(row.credits_remaining ?? 0);
  if (!refill) return { remaining };
  const periodStart = refillPeriodStart(refill, now);
  if (row.credits_refilled_at && row.credits_refilled_at.getTime() >= periodStart) return { remaining };
  return { remaining: refill.amount, refilledAt: new Date(periodStart) };
}

/** A key's credits as answered (null: unlimited). A refill that fell due shows as applied. */
export function creditsOf(row: CreditColumns, now = Date.now()): Credits | null {
  if (row.credits_remaining === null) return null;
  const refill = refillOf(row);
  return {
    remaining: balanceAt(row, now).remaining,
    refill,
    low_at: row.credits_low_threshold === null ? null : Number(row.credits_low_threshold),
    next_refill_at: refill ? new Date(nextRefillAt(refill, now)) : null,
  };
}

/**
 * The columns that give a key these credits (null: unlimited), the balance counted from now: a
 * refill's period starts with the current one, so the next refill is the first to replace it.
 */
export function creditColumns(input: CreditsInput, now = Date.now()) {
  if (input === null) {
    return {
      credits_remaining: null,
      credits_refill_amount: null,
      credits_refill_interval: null,
      credits_refill_day: null,
      credits_low_threshold: null,
      credits_refilled_at: null,
    };
  }
  const { refill } = input;
  const day = refill?.interval === "monthly" ? (refill.day ?? 1) : null;
  return {
    credits_remaining: BigInt(input.remaining),
    credits_refill_amount: refill ? BigInt(refill.amount) : null,
    credits_refill_interval: refill?.interval ?? null,
    credits_refill_day: day,
    credits_low_threshold: input.low_at === null ? null : BigInt(input.low_at),
    credits_refilled_at: refill ? new Date(refillPeriodStart({ interval: refill.interval, day }, now)) : null,
    credits_low_sent: false,
    credits_exhausted_sent: false,
  };
}

/**
 * The columns a set, increment or decrement writes to a key with credits (`row`, read under its
 * lock). A set or a decrement voids the credits processes hold of the old balance (version): they
 * count as spent, so a balance lowered to 0 stays 0. An increment adds to what they hold.
 */
export function changedCreditColumns(row: CreditColumns, change: ChangeCreditsInput, now = Date.now()) {
  const { remaining, refilledAt } = balanceAt(row, now);
  const amount = change.amount ?? 0;
  const refilled = refilledAt ? { credits_refilled_at: refilledAt } : {};
  if (change.op === "decrement")
    return {
      credits_remaining: BigInt(Math.max(0, remaining - amount)),
      credits_version: { increment: 1 },
      ...refilled,
    };
  const raised = { credits_low_sent: false, credits_exhausted_sent: false, ...refilled };
  if (change.op === "increment")
    return { credits_remaining: BigInt(Math.min(MAX_CREDITS, remaining + amount)), ...raised };
  return { credits_remaining: BigInt(amount), credits_version: { increment: 1 }, ...raised };
}
