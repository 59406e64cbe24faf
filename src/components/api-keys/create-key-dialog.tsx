"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { createApiKeyInput, type CreatedApiKey } from "@/lib/schemas/api-keys";
import type { Permission } from "@/lib/permissions";
import { Dialog } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field-error";
import { hintClass, inputClass, labelClass, linkButton } from "@/components/ui/styles";
import { DialogButtons } from "@/components/ui/form";
import { fieldErrorsOf, messageOf, useTRPC } from "@/trpc/react";
import { SCOPE_GROUPS, type ScopeGroup } from "./catalog";

// "Create API key": a name, scopes from the catalog grouped by resource, and an expiry. Checked
// here with the schema the server enforces; what only the server knows (the platform's policy,
// the clock) comes back as field errors and shows next to the field too.

const DAY_MS = 86_400_000;
const PRESETS = [30, 90, 365] as const;
type Expiry = `${(typeof PRESETS)[number]}` | "date" | "never";
type Field = "name" | "scopes" | "expires_at";
type Errors = Partial<Record<Field | "form", string>>;

const LABELS: Record<Field, string> = { name: "Name", scopes: "Scopes", expires_at: "Expiry" };

/** "must not be empty" on Name reads "Name must not be empty."; a whole sentence stays one. */
function sentence(field: Field, message: string): string {
  const text = /^(must|is|are) /.test(message) ? `${LABELS[field]} ${message}` : message.charAt(0).toUpperCase() + message.slice(1);
  return text.endsWith(".") ? text : `${text}.`;
}

const fieldOf = (path: string): Field | undefined => {
  const head = path.split(".")[0];
  return head === "name" || head === "scopes" || head === "expires_at" ? head : undefined;
};

function allowed(expiry: Expiry, maxDays: number | null): boolean {
  if (maxDays === null || expiry === "date") return true;
  return expiry !== "never" && Number(expiry) <= maxDays;
}

const isoDate = (time: number) => new Date(time).toISOString().slice(0, 10);

interface CreateKeyDialogProps {
  open: boolean;
  onClose: () => void;
  onCreated: (key: CreatedApiKey) => void;
}

export function CreateKeyDialog({ open, onClose, onCreated }: CreateKeyDialogProps) {
  return (
    <Dialog open={open} onClose={onClose} title="Create API key" description="The key acts as you, within the scopes you pick.">
      <CreateKeyForm onCancel={onClose} onCreated={onCreated} />
    </Dialog>
  );
}

function ScopeGroupFields({ group, selected, onChange }: { group: ScopeGroup; selected: ReadonlySet<Permission>; onChange: (next: Set<Permission>) => void }) {
  const id = useId();
  const selectable = group.scopes.filter((s) => !s.dangerous).map((s) => s.permission);
  const all = selectable.length > 0 && selectable.every((p) => selected.has(p));
  const toggleAll = () => {
    const next = new Set(selected);
    for (const p of selectable) {
      if (all) next.delete(p);
      else next.add(p);
    }
    onChange(next);
  };
  return (
    <fieldset className="border-t border-slate-200 px-3 py-3 first:border-t-0 dark:border-slate-800">
      <div className="flex items-center justify-between gap-2">
        <legend className="text-sm font-semibold">{group.label}</legend>
        {selectable.length > 1 && (
          <button type="button" onClick={toggleAll} className={`${linkButton} text-xs`} aria-label={`${all ? "Clear" : "Select all"} ${group.label} scopes`}>
            {all ? "Clear" : "Select all"}
          </button>
        )}
      </div>
      <ul className="mt-2 space-y-2">
        {group.scopes.map(({ permission, dangerous, allows }, index) => (
          <li key={permission} className="flex items-start gap-2">
            <input
              id={`${id}-${index}`}
              type="checkbox"
              checked={selected.has(permission)}
              disabled={dangerous}
              aria-describedby={`${id}-${index}-about`}
              onChange={(event) => {
                const next = new Set(selected);
                if (event.target.checked) next.add(permission);
                else next.delete(permission);
                onChange(next);
              }}
              className="mt-1 size-4 shrink-0 accent-brand-600"
            />
            <div className="min-w-0">
              <label htmlFor={`${id}-${index}`} className={`font-mono text-sm break-all ${dangerous ? "text-slate-400 dark:text-slate-500" : ""}`}>
                {permission}
              </label>
              {dangerous && (
                <span className="ml-2 inline-flex rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-amber-600/20 ring-inset dark:bg-amber-950 dark:text-amber-200">
                  Never reaches a key
                </span>
              )}
              <p id={`${id}-${index}-about`} className="text-xs text-slate-500 dark:text-slate-400">
                {allows.charAt(0).toUpperCase() + allows.slice(1)}.
                {dangerous && " Dangerous: no API key ever carries it, so it cannot be picked."}
              </p>
            </div>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

function CreateKeyForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (key: CreatedApiKey) => void }) {
  const trpc = useTRPC();
  const policy = useQuery(trpc.apiKeys.policy.queryOptions());
  const maxDays = policy.data?.max_lifetime_days ?? null;

  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Set<Permission>>(() => new Set());
  const [expiry, setExpiry] = useState<Expiry>("90");
  const [date, setDate] = useState("");
  const [today] = useState(() => Date.now());
  const [errors, setErrors] = useState<Errors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const ids = { name: useId(), scopes: useId(), expiry: useId(), date: useId(), form: useId() };

  // The choice in effect: the one picked, unless the platform's policy rules it out.
  const fallback: Expiry = [...PRESETS].reverse().map((d) => `${d}` as Expiry).find((e) => allowed(e, maxDays)) ?? "date";
  const choice = allowed(expiry, maxDays) ? expiry : fallback;

  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: onCreated,
      onError: (error) => {
        const found: Errors = {};
        for (const { path, message } of fieldErrorsOf(error)) {
          const field = fieldOf(path);
          if (field) found[field] ??= sentence(field, message);
        }
        if (Object.keys(found).length === 0) found.form = messageOf(error);
        setErrors(found);
      },
    }),
  );

  // After a failed attempt, take the keyboard to the first field to fix.
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: Errors = {};
    let expiresAt: string | null = null;
    if (choice === "date") {
      const end = new Date(`${date}T23:59:59`);
      if (!date || Number.isNaN(end.getTime())) found.expires_at = "Pick the date the key expires.";
      else expiresAt = end.toISOString();
    } else if (choice !== "never") {
      expiresAt = new Date(Date.now() + Number(choice) * DAY_MS).toISOString();
    }
    if (scopes.size === 0) found.scopes = "Pick at least one scope.";
    const parsed = createApiKeyInput.safeParse({ name, scopes: [...scopes], expires_at: expiresAt });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = fieldOf(issue.path.map(String).join("."));
        if (field) found[field] ??= sentence(field, issue.message);
      }
    }
    setErrors(found);
    if (Object.keys(found).length === 0 && parsed.success) create.mutate(parsed.data);
  }

  const describedBy = (...parts: (string | false | undefined)[]) => parts.filter(Boolean).join(" ") || undefined;

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-6">
      <div>
        <label htmlFor={ids.name} className={labelClass}>
          Name
        </label>
        <input
          id={ids.name}
          value={name}
          onChange={(event) => setName(event.target.value)}
          autoFocus
          autoComplete="off"
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy(`${ids.name}-hint`, errors.name && `${ids.name}-error`)}
          className={`${inputClass} mt-1`}
        />
        <p id={`${ids.name}-hint`} className={hintClass}>
          Say what uses the key, for example “billing export”.
        </p>
        <FieldError id={`${ids.name}-error`} message={errors.name} />
      </div>

      <fieldset aria-describedby={describedBy(`${ids.scopes}-hint`, errors.scopes && `${ids.scopes}-error`)}>
        <legend className={labelClass}>Scopes</legend>
        <p id={`${ids.scopes}-hint`} className={hintClass}>
          What the key may do. It never carries more than you hold when it is used.
        </p>
        <div
          className="mt-2 max-h-64 overflow-y-auto rounded-md border border-slate-300 aria-[invalid=true]:border-red-500 dark:border-slate-700"
          aria-invalid={errors.scopes ? true : undefined}
          tabIndex={errors.scopes ? -1 : undefined}
        >
          {SCOPE_GROUPS.map((group) => (
            <ScopeGroupFields key={group.resource} group={group} selected={scopes} onChange={setScopes} />
          ))}
        </div>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300" aria-live="polite">
          {scopes.size === 1 ? "1 scope selected" : `${scopes.size} scopes selected`}
        </p>
        <FieldError id={`${ids.scopes}-error`} message={errors.scopes} />
      </fieldset>

      <fieldset aria-describedby={describedBy(`${ids.expiry}-hint`, errors.expires_at && `${ids.expiry}-error`)}>
        <legend className={labelClass}>Expires</legend>
        <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2">
          {[...PRESETS.map((d) => ({ value: `${d}` as Expiry, label: `In ${d} days` })), { value: "date" as Expiry, label: "On a date" }, { value: "never" as Expiry, label: "Never" }].map(
            (option) => (
              <label key={option.value} className={`flex items-center gap-2 text-sm ${allowed(option.value, maxDays) ? "" : "text-slate-400 dark:text-slate-500"}`}>
                <input
                  type="radio"
                  name="expiry"
                  value={option.value}
                  checked={choice === option.value}
                  disabled={!allowed(option.value, maxDays)}
                  onChange={() => setExpiry(option.value)}
                  className="size-4 accent-brand-600"
                />
                {option.label}
              </label>
            ),
          )}
        </div>
        {choice === "date" && (
          <div className="mt-3 max-w-xs">
            <label htmlFor={ids.date} className={labelClass}>
              Expiry date
            </label>
            <input
              id={ids.date}
              type="date"
              value={date}
              min={isoDate(today + DAY_MS)}
              max={maxDays === null ? undefined : isoDate(today + maxDays * DAY_MS)}
              onChange={(event) => setDate(event.target.value)}
              aria-invalid={errors.expires_at ? true : undefined}
              aria-describedby={describedBy(`${ids.date}-hint`, errors.expires_at && `${ids.expiry}-error`)}
              className={`${inputClass} mt-1`}
            />
            <p id={`${ids.date}-hint`} className={hintClass}>
              The key stops working at the end of that day, your time.
            </p>
          </div>
        )}
        <p id={`${ids.expiry}-hint`} className={hintClass}>
          {maxDays === null
            ? "A key that expires limits the damage if it leaks."
            : `The platform's policy: every key expires within ${maxDays} days.`}
        </p>
        <FieldError id={`${ids.expiry}-error`} message={errors.expires_at} />
      </fieldset>

      {errors.form && (
        <p id={ids.form} role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
          {errors.form}
        </p>
      )}

      <DialogButtons onCancel={onCancel} pending={create.isPending} label="Create key" pendingLabel="Creating…" />
    </form>
  );
}
