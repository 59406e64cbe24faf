"use client";

import { useEffect, useId, useState, type InputHTMLAttributes, type RefObject, type ReactNode, type TextareaHTMLAttributes } from "react";
import type { z } from "zod";
import { FieldError } from "@/components/ui/field-error";
import { hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { fieldErrorsOf, messageOf } from "@/trpc/react";

// Form plumbing of the identity screens, following the API key dialog: each control has a label,
// an optional hint and its error under it (aria-describedby, aria-invalid); errors come from the
// zod schemas the server enforces and from the server's field `errors`, and after a failed attempt
// the first field to fix takes the focus.

export const describedBy = (...parts: (string | false | undefined | null)[]) => parts.filter(Boolean).join(" ") || undefined;

const FRIENDLY: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Too small: expected string to have >=1 characters?$/, () => "is required"],
  [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `must be at least ${m[1]} characters`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `must be at most ${m[1]} characters`],
  [/^Invalid input: expected \w+, received undefined$/, () => "is required"],
  [/^Invalid option/, () => "is not one of the choices"],
];

/** "must not be empty" on Name reads "Name must not be empty."; a whole sentence stays one. */
export function sentence(label: string, message: string): string {
  const rule = FRIENDLY.find(([pattern]) => pattern.test(message));
  const text = rule ? rule[1](message.match(rule[0]) as RegExpMatchArray) : message;
  const full = /^(must|is|are|cannot|should|may) /.test(text) ? `${label} ${text}` : text.charAt(0).toUpperCase() + text.slice(1);
  return full.endsWith(".") ? full : `${full}.`;
}

export type Errors<F extends string> = Partial<Record<F | "form", string>>;

/**
 * A form's errors by field (`formRef`: the form, whose first invalid control takes the focus). `labels` names the fields the form shows; `labelFor` may name an error
 * below a field (`redirect_uris.1` → "Redirect URI 2"). Anything else lands on the form.
 */
export function useFormErrors<F extends string>(labels: Record<F, string>, formRef: RefObject<HTMLFormElement | null>, labelFor?: (field: F, rest: string[]) => string) {
  const [errors, setErrors] = useState<Errors<F>>({});

  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors, formRef]);

  function place(found: Errors<F>, path: string, message: string): boolean {
    const [head, ...rest] = path.split(".");
    if (!head || !Object.hasOwn(labels, head)) return false;
    const field = head as F;
    const label = labelFor ? labelFor(field, rest) : labels[field];
    const text = sentence(label, message);
    found[field] = found[field] ? `${found[field]} ${text}` : text;
    return true;
  }

  return {
    errors,
    set: (found: Errors<F>) => setErrors(found),
    /** Shows a zod failure's issues (with `found` from checks of the form's own). */
    showIssues(error: z.ZodError, found: Errors<F> = {}) {
      for (const issue of error.issues) {
        if (!place(found, issue.path.map(String).join("."), issue.message)) found.form ??= issue.message;
      }
      setErrors({ ...found });
    },
    /** Shows a failed call: field errors next to their fields, anything else above the buttons. */
    fromServer(error: unknown) {
      const found: Errors<F> = {};
      for (const { path, message } of fieldErrorsOf(error)) {
        if (!place(found, path, message)) found.form ??= sentence(path, message);
      }
      if (Object.keys(found).length === 0) found.form = messageOf(error);
      setErrors(found);
    },
  };
}

interface FieldProps {
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

export function TextField({ label, hint, error, className, ...input }: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, "className">) {
  const ids = useFieldIds(hint, error);
  return (
    <div className={className}>
      <label htmlFor={ids.id} className={labelClass}>
        {label}
      </label>
      <input id={ids.id} aria-invalid={ids.invalid} aria-describedby={ids.describedBy} className={`${inputClass} mt-1`} {...input} />
      {hint && (
        <p id={ids.hintId} className={hintClass}>
          {hint}
        </p>
      )}
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}

export function TextAreaField({ label, hint, error, className, ...input }: FieldProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "className">) {
  const ids = useFieldIds(hint, error);
  return (
    <div className={className}>
      <label htmlFor={ids.id} className={labelClass}>
        {label}
      </label>
      <textarea id={ids.id} aria-invalid={ids.invalid} aria-describedby={ids.describedBy} className={`${inputClass} mt-1`} {...input} />
      {hint && (
        <p id={ids.hintId} className={hintClass}>
          {hint}
        </p>
      )}
      <FieldError id={ids.errorId} message={error} />
    </div>
  );
}

/** A group of radios or checkboxes with a legend, a hint and its error. */
export function ChoiceGroup({ legend, hint, error, children }: { legend: ReactNode; hint?: ReactNode; error?: string; children: ReactNode }) {
  const ids = useFieldIds(hint, error);
  return (
    <fieldset aria-describedby={ids.describedBy}>
      <legend className={labelClass}>{legend}</legend>
      {hint && (
        <p id={ids.hintId} className={hintClass}>
          {hint}
        </p>
      )}
      <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2" aria-invalid={ids.invalid} tabIndex={ids.invalid ? -1 : undefined}>
        {children}
      </div>
      <FieldError id={ids.errorId} message={error} />
    </fieldset>
  );
}

export function Choice({ type, label, ...input }: { type: "radio" | "checkbox"; label: ReactNode } & Omit<InputHTMLAttributes<HTMLInputElement>, "type">) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <input type={type} className="size-4 accent-brand-600" {...input} />
      {label}
    </label>
  );
}

/** Blank text becomes null (an optional profile field cleared), the rest is trimmed. */
export const orNull = (value: string): string | null => (value.trim() === "" ? null : value.trim());
