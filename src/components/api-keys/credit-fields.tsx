"use client";

import { useFormContext } from "react-hook-form";
import { MAX_CREDITS, REFILL_INTERVALS } from "@/lib/credits";
import type { ApiKey, CreditsInput } from "@/lib/schemas/api-keys";
import { CheckboxField, RadioGroup, TextField } from "@/components/ui/fields";

// A key's budget in the create and edit dialogs alike: unlimited, or a balance of credits (one a
// request) with an optional daily or monthly refill that replaces it. Typed as text, checked here,
// and checked again by the server with the schema it enforces.

export interface CreditValues {
  credits_limited: boolean;
  credits_remaining: string;
  credits_refill: "none" | (typeof REFILL_INTERVALS)[number];
  credits_refill_amount: string;
  credits_refill_day: string;
}

const REFILL_OPTIONS = [
  { value: "none", label: "No refill" },
  { value: "daily", label: "Daily" },
  { value: "monthly", label: "Monthly" },
] as const;

export function creditValues(key: Pick<ApiKey, "credits"> | null): CreditValues {
  const credits = key?.credits ?? null;
  return {
    credits_limited: credits !== null,
    credits_remaining: credits ? String(credits.remaining) : "",
    credits_refill: credits?.refill?.interval ?? "none",
    credits_refill_amount: credits?.refill ? String(credits.refill.amount) : "",
    credits_refill_day: String(credits?.refill?.day ?? 1),
  };
}

type Problem = (field: keyof CreditValues, message: string) => void;

/** A whole number typed in a field, within `min`..MAX_CREDITS; else the field's problem. */
function countOf(text: string, min: number, field: keyof CreditValues, problem: Problem): number {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isInteger(value) || value < min || value > MAX_CREDITS) {
    problem(field, `Write a whole number from ${min} to ${MAX_CREDITS.toLocaleString("en")}.`);
    return 0;
  }
  return value;
}

/** The budget the fields say (null: unlimited); `lowAt` is kept as the key had it (the dialogs do not show it). */
export function creditsInputOf(values: CreditValues, problem: Problem, lowAt: number | null = null): CreditsInput {
  if (!values.credits_limited) return null;
  const remaining = countOf(values.credits_remaining, 0, "credits_remaining", problem);
  if (values.credits_refill === "none") return { remaining, refill: null, low_at: lowAt };
  const amount = countOf(values.credits_refill_amount, 1, "credits_refill_amount", problem);
  const monthly = values.credits_refill === "monthly";
  const day = monthly ? Number(values.credits_refill_day) : null;
  if (monthly && !(Number.isInteger(day) && day! >= 1 && day! <= 31))
    problem("credits_refill_day", "Write a day of the month from 1 to 31.");
  return { remaining, refill: { amount, interval: values.credits_refill, day }, low_at: lowAt };
}

export function CreditFields({ editing = false }: { editing?: boolean }) {
  const { watch } = useFormContext<CreditValues>();
  const limited = watch("credits_limited");
  const refill = watch("credits_refill");
  return (
    <div className="space-y-4">
      <CheckboxField
        name="credits_limited"
        label="Limit the key's usage with credits"
        hint="Each request the key makes costs one credit; with none left it is refused (429 credits_exhausted). Unticked: unlimited."
      />
      {limited && (
        <div className="space-y-4 border-l-2 border-slate-200 pl-4 dark:border-slate-700">
          <TextField
            name="credits_remaining"
            label="Credits"
            inputMode="numeric"
            autoComplete="off"
            hint={
              editing
                ? "Saving a changed budget sets the balance to this. To add or take away credits, use Change balance on the key's page."
                : "The balance the key starts with."
            }
          />
          <RadioGroup name="credits_refill" legend="Refill" options={REFILL_OPTIONS} />
          {refill !== "none" && (
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField
                name="credits_refill_amount"
                label="Refill to"
                inputMode="numeric"
                autoComplete="off"
                hint="At 00:00 UTC the balance becomes this: a refill replaces what is left, it does not add to it."
              />
              {refill === "monthly" && (
                <TextField
                  name="credits_refill_day"
                  label="Day of the month"
                  inputMode="numeric"
                  autoComplete="off"
                  hint="1 to 31; in a shorter month, its last day."
                />
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
