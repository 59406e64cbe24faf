"use client";

import { useEffect, useId, useState, type InputHTMLAttributes, type RefObject, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import type { z } from "zod";
import { FieldError } from "@/components/ui/field-error";
import { hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { fieldErrorsOf, messageOf } from "@/trpc/react";

// Form plumbing of the tenancy screens, following the API key dialog: each control has a label,
// an optional hint and its error under it (aria-describedby, aria-invalid); errors come from the
// same zod schemas the server enforces and from the server's field `errors`, and the first field
// to fix takes the focus.

const describedBy = (...parts: (string | false | undefined | null)[]) => parts.filter(Boolean).join(" ") || undefined;

const FRIENDLY: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Too small: expected string to have >=1 characters?$/, () => "is required"],
  [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `must be at least ${m[1]} characters`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `must be at most ${m[1]} characters`],
  [/^Invalid URL$/, () => "must be a URL"],
  [/^Invalid email address$/, () => "must be an email address"],
  [/^Invalid option/, () => "is not one of the choices"],
  [/^Invalid input: expected \w+, received undefined$/, () => "is required"],
];

/** "is required" on Name reads "Name is required."; a whole sentence stays one. */
export function sentence(label: string, message: string): string {
  const rule = FRIENDLY.find(([pattern]) => pattern.test(message));
  const text = rule ? rule[1](message.match(rule[0]) as RegExpMatchArray) : message;
  const full = /^(must|is|are|cannot|should) /.test(text) ? `${label} ${text}` : text.charAt(0).toUpperCase() + text.slice(1);
  return full.endsWith(".") ? full : `${full}.`;
}

export type Errors<F extends string> = Partial<Record<F | "form", string>>;

/**
 * A form's errors by field. `labels` names the fields the form shows; an error on a path below a
 * field (`config.temperature`) lands on that field and names the rest of the path. After a failed
 * attempt the first field to fix in `formRef` takes the keyboard (else the form's alert).
 */
export function useFormErrors<F extends string>(labels: Record<F, string>, formRef: RefObject<HTMLFormElement | null>) {
  const [errors, setErrors] = useState<Errors<F>>({});

  useEffect(() => {
    const form = formRef.current;
    // No field at fault (a refusal such as tier_required): the form's alert, scrolled into view.
    (form?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form?.querySelector<HTMLElement>('[role="alert"]'))?.focus();
  }, [errors, formRef]);

  function place(found: Errors<F>, path: string, message: string): boolean {
    const [head, ...rest] = path.split(".");
    if (!head || !(head in labels)) return false;
    const field = head as F;
    const label = rest.length > 0 ? `${labels[field]} (${rest.join(".")})` : labels[field];
    found[field] ??= sentence(label, message);
    return true;
  }

  return {
    errors,
    /** Shows these errors (an empty object clears them). */
    set: (found: Errors<F>) => setErrors(found),
    clear: () => setErrors({}),
    /** Adds a zod failure's issues to `found`; issues on unknown fields go to the form. */
    addIssues(found: Errors<F>, error: z.ZodError) {
      for (const issue of error.issues) {
        if (!place(found, issue.path.map(String).join("."), issue.message)) found.form ??= issue.message;
      }
    },
    /** Shows a failed call: field errors next to their fields, anything else above the buttons. */
    fromServer(error: unknown) {
      const found: Errors<F> = {};
      const unplaced: string[] = [];
      for (const { path, message } of fieldErrorsOf(error)) {
        if (!place(found, path, message)) unplaced.push(path ? `${path} ${message}` : message);
      }
      if (Object.keys(found).length === 0) found.form = messageOf(error);
      else if (unplaced.length > 0) found.form = sentence("", unplaced.join("; ")).trim();
      setErrors(found);
    },
  };
}

interface FieldFrameProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  className?: string;
}

function useFieldIds(hint: ReactNode, error: string | undefined) {
  const id = useId();
  return {
    id,
    hintId: `${id}-hint`,
    errorId: `${id}-error`,
    describedBy: describedBy(hint ? `${id}-hint` : null, error ? `${id}-error` : null),
    invalid: error ? true : undefined,
  };
}

function Hint({ id, hint }: { id: string; hint: ReactNode }) {
  return hint ? (
    <p id={id} className={hintClass}>
      {hint}
    </p>
  ) : null;
}

export function TextField({ label, hint, error, className, ...input }: FieldFrameProps & Omit<InputHTMLAttributes<HTMLInputElement>, "className">) {
  const ids = useFieldIds(hint, error);
  return (
    <div className={className}>
      <label htmlFor={ids.id} className={labelClass}>
        {label}
      </label>
      <input
        id={ids.id}
        {...input}
        aria-invalid={ids.invalid}
        aria-describedby={ids.describedBy}
        className={`${inputClass} mt-1 ${input.readOnly ? "bg-slate-50 text-slate-600 dark:bg-slate-950 dark:text-slate-300" : ""}`}
      />
      <Hint id={ids.hintId} hint={hint} />
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}

export function TextAreaField({
  label,
  hint,
  error,
  className,
  mono = false,
  ...textarea
}: FieldFrameProps & { mono?: boolean } & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "className">) {
  const ids = useFieldIds(hint, error);
  return (
    <div className={className}>
      <label htmlFor={ids.id} className={labelClass}>
        {label}
      </label>
      <textarea
        id={ids.id}
        rows={4}
        spellCheck={mono ? false : undefined}
        {...textarea}
        aria-invalid={ids.invalid}
        aria-describedby={ids.describedBy}
        className={`${inputClass} mt-1 ${mono ? "font-mono text-xs" : ""}`}
      />
      <Hint id={ids.hintId} hint={hint} />
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export const optionsOf = (values: readonly string[]): Option[] => values.map((value) => ({ value, label: value }));

export function SelectField({
  label,
  hint,
  error,
  className,
  options,
  ...select
}: FieldFrameProps & { options: readonly Option[] } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "className">) {
  const ids = useFieldIds(hint, error);
  return (
    <div className={className}>
      <label htmlFor={ids.id} className={labelClass}>
        {label}
      </label>
      <select id={ids.id} {...select} aria-invalid={ids.invalid} aria-describedby={ids.describedBy} className={`${inputClass} mt-1`}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <Hint id={ids.hintId} hint={hint} />
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}

export function CheckboxField({
  label,
  hint,
  error,
  className,
  ...input
}: FieldFrameProps & Omit<InputHTMLAttributes<HTMLInputElement>, "className" | "type">) {
  const ids = useFieldIds(hint, error);
  return (
    <div className={`flex items-start gap-2 ${className ?? ""}`}>
      <input
        id={ids.id}
        type="checkbox"
        {...input}
        aria-invalid={ids.invalid}
        aria-describedby={ids.describedBy}
        className="mt-0.5 size-4 shrink-0 accent-brand-600"
      />
      <div>
        <label htmlFor={ids.id} className="text-sm font-medium">
          {label}
        </label>
        <Hint id={ids.hintId} hint={hint} />
        <FieldError id={ids.errorId} message={error} />
      </div>
    </div>
  );
}

/** The value once typing has paused (search boxes query as the user types, not per keystroke). */
export function useDebounced<T>(value: T, ms = 300): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** The buttons at the foot of a dialog's form, kept in view while the form scrolls. */
export function FormButtons({ children }: { children: ReactNode }) {
  return (
    <div className="sticky bottom-0 -mx-6 -mb-6 flex justify-end gap-3 border-t border-slate-200 bg-white px-6 py-4 dark:border-slate-800 dark:bg-slate-900">
      {children}
    </div>
  );
}

/** The buttons at the foot of a form on the page. */
export function FormButtonsInline({ children }: { children: ReactNode }) {
  return <div className="flex justify-end gap-3">{children}</div>;
}

// ---- JSON and typed values -----------------------------------------------------------------------

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A JSON object typed into a textarea (blank: `{}`). */
export function parseJsonObject(text: string, label: string): Parsed<Record<string, z.core.util.JSONType>> {
  if (text.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${label} is not valid JSON: ${(error as Error).message}.` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: `${label} must be a JSON object, like {"temperature": 0.2}.` };
  }
  return { ok: true, value: value as Record<string, z.core.util.JSONType> };
}

export const jsonText = (value: unknown) => (value && typeof value === "object" && Object.keys(value).length === 0 ? "" : JSON.stringify(value, null, 2));

export const VALUE_KINDS = ["string", "integer", "float", "boolean", "json"] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

/** The kind of input that edits an existing value. */
export function kindOf(value: unknown): ValueKind {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "float";
  return "json";
}

/** A value as its input shows it. */
export const valueText = (kind: ValueKind, value: unknown): string =>
  kind === "string" ? String(value ?? "") : kind === "json" ? JSON.stringify(value ?? null, null, 2) : value === undefined ? "" : String(value);

/** The value typed for a kind. */
export function parseValue(kind: ValueKind, text: string): Parsed<z.core.util.JSONType> {
  switch (kind) {
    case "string":
      return { ok: true, value: text };
    case "boolean":
      return text === "true" || text === "false" ? { ok: true, value: text === "true" } : { ok: false, message: "Value must be true or false." };
    case "integer":
      return /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text))
        ? { ok: true, value: Number(text) }
        : { ok: false, message: "Value must be a whole number, like 20." };
    case "float": {
      const n = Number(text);
      return text.trim() !== "" && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: "Value must be a number, like 0.5." };
    }
    case "json":
      try {
        return { ok: true, value: JSON.parse(text) as z.core.util.JSONType };
      } catch (error) {
        return { ok: false, message: `Value is not valid JSON: ${(error as Error).message}.` };
      }
  }
}

/** The input of a typed value: a text field, a number, true/false, or a JSON editor. */
export function ValueInput({ kind, text, onText, error, hint }: { kind: ValueKind; text: string; onText: (text: string) => void; error?: string; hint?: ReactNode }) {
  if (kind === "boolean") {
    return (
      <SelectField
        label="Value"
        value={text === "true" || text === "false" ? text : ""}
        onChange={(event) => onText(event.target.value)}
        options={[{ value: "", label: "Pick true or false" }, ...optionsOf(["true", "false"])]}
        error={error}
        hint={hint}
      />
    );
  }
  if (kind === "json") {
    return <TextAreaField label="Value" mono value={text} onChange={(event) => onText(event.target.value)} error={error} hint={hint ?? "Any JSON: an object, an array, a number, a string in double quotes…"} />;
  }
  return (
    <TextField
      label="Value"
      value={text}
      onChange={(event) => onText(event.target.value)}
      inputMode={kind === "string" ? undefined : kind === "integer" ? "numeric" : "decimal"}
      autoComplete="off"
      error={error}
      hint={hint}
    />
  );
}
