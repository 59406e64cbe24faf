"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useFormContext } from "react-hook-form";
import { createApiKeyInput, parseRateLimit, type CreateApiKeyInput, type CreatedApiKey } from "@/lib/schemas/api-keys";
import { PermissionPicker } from "@/components/identity/permission-picker";
import { AfterFirstFrame, Dialog } from "@/components/ui/dialog";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useFieldController, useSchemaForm } from "@/components/ui/form";
import { hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { CreditFields, creditsInputOf, creditValues, type CreditValues } from "./credit-fields";
import { keyCalls, type ServiceAccountRef } from "./key-calls";
import { MetaField, metaInputOf, metaValues, type MetaValues } from "./meta-field";
import { RestrictionFields, restrictionInput, restrictionValues, type RestrictionValues } from "./restriction-fields";

// "Create API key": a name, scopes from the catalog grouped by resource, an expiry, an optional
// rate limit, optional restrictions (organizations, networks), a budget and metadata. Checked
// here with the schema the server enforces; what only the server knows (the platform's policy,
// the clock) comes back as field errors and shows next to the field too.

const DAY_MS = 86_400_000;
const PRESETS = [30, 90, 365] as const;
type Expiry = `${(typeof PRESETS)[number]}` | "date" | "never";
const EXPIRY_OPTIONS: { value: Expiry; label: string }[] = [
  ...PRESETS.map((d) => ({ value: `${d}` as Expiry, label: `In ${d} days` })),
  { value: "date", label: "On a date" },
  { value: "never", label: "Never" },
];

/** Whether the platform's policy allows the choice: no "never" where an expiry is required or bounded. */
function allowed(expiry: Expiry, maxDays: number | null, requireExpiry = false): boolean {
  if (expiry === "date") return true;
  if (expiry === "never") return maxDays === null && !requireExpiry;
  return maxDays === null || Number(expiry) <= maxDays;
}

const isoDate = (time: number) => new Date(time).toISOString().slice(0, 10);
/** The moment a preset expiry ends, counted when the form is submitted. */
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

interface CreateKeyDialogProps {
  /** Who will own the key: the signed-in user, or a service account (`of`). */
  ownerId: string;
  of?: ServiceAccountRef;
  open: boolean;
  onClose: () => void;
  onCreated: (key: CreatedApiKey) => void;
}

export function CreateKeyDialog({ ownerId, of, open, onClose, onCreated }: CreateKeyDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Create API key"
      description={
        of
          ? "The key acts as the service account, in its organization, within the scopes you pick and its roles."
          : "The key acts as you, within the scopes you pick."
      }
    >
      <CreateKeyForm ownerId={ownerId} of={of} onCancel={onClose} onCreated={onCreated} />
    </Dialog>
  );
}

interface KeyValues extends RestrictionValues, CreditValues, MetaValues {
  name: string;
  scopes: string[];
  /** The expiry picked: a preset, a date, or never. */
  expires_at: Expiry;
  date: string;
  /** `600/60` (requests per seconds), or empty for the platform's default. */
  rate_limit: string;
}

function CreateKeyForm({
  ownerId,
  of,
  onCancel,
  onCreated,
}: {
  ownerId: string;
  of?: ServiceAccountRef;
  onCancel: () => void;
  onCreated: (key: CreatedApiKey) => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const policy = useQuery(trpc.apiKeys.policy.queryOptions());
  const maxDays = policy.data?.max_lifetime_days ?? null;
  const requireExpiry = policy.data?.require_expiry ?? false;
  const [today] = useState(() => Date.now());
  // The choice in effect: the one picked, unless the platform's policy rules it out.
  const fallback: Expiry =
    EXPIRY_OPTIONS.map((o) => o.value)
      .filter((e) => e !== "date" && e !== "never")
      .reverse()
      .find((e) => allowed(e, maxDays)) ?? "date";
  const choiceOf = (expiry: Expiry) => (allowed(expiry, maxDays, requireExpiry) ? expiry : fallback);

  const form = useSchemaForm<KeyValues, CreateApiKeyInput>({
    schema: createApiKeyInput,
    defaultValues: {
      name: "",
      scopes: [],
      expires_at: "90",
      date: "",
      rate_limit: "",
      ...restrictionValues(null),
      ...creditValues(null),
      ...metaValues(null),
    },
    toInput: (values, problem) => {
      const { name, scopes, expires_at, date, rate_limit } = values;
      if (scopes.length === 0) problem("scopes", "Pick at least one scope.");
      const choice = choiceOf(expires_at);
      let expiresAt: string | null = null;
      if (choice === "date") {
        const end = new Date(`${date}T23:59:59`);
        if (!date || Number.isNaN(end.getTime())) problem("expires_at", "Pick the date the key expires.");
        else expiresAt = end.toISOString();
      } else if (choice !== "never") {
        expiresAt = daysFromNow(Number(choice));
      }
      const rateLimit = rate_limit.trim() === "" ? null : parseRateLimit(rate_limit);
      if (rateLimit === undefined) problem("rate_limit", "Write the rate limit as requests/seconds, like 600/60.");
      return {
        name,
        scopes,
        expires_at: expiresAt,
        rate_limit: rateLimit ?? null,
        ...restrictionInput(values),
        credits: creditsInputOf(values, problem),
        meta: metaInputOf(values, problem),
      };
    },
    submit: async (input) => onCreated(await keyCalls(client, of).create(input)),
  });
  const choice = choiceOf(form.watch("expires_at"));

  return (
    <Form form={form} className="space-y-6">
      <TextField
        name="name"
        label="Name"
        autoFocus
        autoComplete="off"
        hint="Say what uses the key, for example “billing export”."
      />
      <AfterFirstFrame className="min-h-96">
        <PermissionPicker
          name="scopes"
          legend="Scopes"
          hint="What the key may do. It never carries more than you hold when it is used."
          noun="scope"
          lockDangerous
          dangerousNote="no API key ever carries one."
        />
        <ExpiryField choice={choice} maxDays={maxDays} requireExpiry={requireExpiry} today={today} />
        <RateLimitField />
        <RestrictionFields ownerId={ownerId} />
        <CreditFields />
        <MetaField />
      </AfterFirstFrame>
      <DialogButtons onCancel={onCancel} label="Create key" pendingLabel="Creating…" />
    </Form>
  );
}

/** A key's own rate limit, typed as requests/seconds (create and edit dialogs). */
export function RateLimitField() {
  return (
    <TextField
      name="rate_limit"
      label="Rate limit (optional)"
      placeholder="600/60"
      autoComplete="off"
      hint="Requests per seconds, like 600/60. Empty: the platform's default limit."
    />
  );
}

/** The expiry: presets the policy allows, a date, or never; the date field is part of the choice and shares its error. */
function ExpiryField({
  choice,
  maxDays,
  requireExpiry,
  today,
}: {
  choice: Expiry;
  maxDays: number | null;
  requireExpiry: boolean;
  today: number;
}) {
  const ids = { hint: useId(), error: useId(), date: useId() };
  const { field, message } = useFieldController("expires_at", "Expiry");
  const { register } = useFormContext<KeyValues>();
  const invalid = message ? true : undefined;
  return (
    <fieldset aria-describedby={describedBy(ids.hint, message && ids.error)}>
      <legend className={labelClass}>Expires</legend>
      <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2">
        {EXPIRY_OPTIONS.map((option) => (
          <label
            key={option.value}
            className={`flex items-center gap-2 text-sm ${allowed(option.value, maxDays, requireExpiry) ? "" : "text-slate-400 dark:text-slate-500"}`}
          >
            <input
              type="radio"
              name={field.name}
              value={option.value}
              checked={choice === option.value}
              disabled={!allowed(option.value, maxDays, requireExpiry)}
              onChange={() => field.onChange(option.value)}
              className="size-4 accent-brand-600"
            />
            {option.label}
          </label>
        ))}
      </div>
      {choice === "date" && (
        <div className="mt-3 max-w-xs">
          <label htmlFor={ids.date} className={labelClass}>
            Expiry date
          </label>
          <input
            id={ids.date}
            type="date"
            {...register("date")}
            min={isoDate(today + DAY_MS)}
            max={maxDays === null ? undefined : isoDate(today + maxDays * DAY_MS)}
            aria-invalid={invalid}
            aria-describedby={describedBy(`${ids.date}-hint`, message && ids.error)}
            className={`${inputClass} mt-1`}
          />
          <p id={`${ids.date}-hint`} className={hintClass}>
            The key stops working at the end of that day, your time.
          </p>
        </div>
      )}
      <p id={ids.hint} className={hintClass}>
        {maxDays !== null
          ? `The platform's policy: every key expires within ${maxDays} days.`
          : requireExpiry
            ? "The platform's policy: every key has an expiry."
            : "A key that expires limits the damage if it leaks."}
      </p>
      <FieldError id={ids.error} message={message} />
    </fieldset>
  );
}
