"use client";

import { useEffect, useId, useState, type InputHTMLAttributes, type ReactNode, type RefObject, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import type { z } from "zod";
import { describedBy, FieldError } from "./field-error";
import { collectErrors, serverErrors, zodErrors, type FieldLabeller, type FormErrors } from "./form-errors";
import { hintClass, inputClass, labelClass, primaryButton, secondaryButton } from "./styles";

// Form plumbing of the console, following the API key dialog: each control has a label, an
// optional hint and its error under it (aria-describedby, aria-invalid); errors come from the zod
// schemas the server enforces and from the server's field `errors`, and after a failed attempt the
// first field to fix takes the focus (else the form's alert).

/**
 * A form's errors by field. `labels` names the fields the form shows; an error below a field names
 * the rest of its path (`config.temperature` → "Config (temperature)") unless `labelFor` names it
 * (`redirect_uris.1` → "Redirect URI 2"). Anything else lands on the form.
 */
export function useFormErrors<F extends string>(
  labels: Record<F, string>,
  formRef: RefObject<HTMLFormElement | null>,
  labelFor: FieldLabeller<F> = (field, rest) => (rest.length > 0 ? `${labels[field]} (${rest.join(".")})` : labels[field]),
) {
  const [errors, setErrors] = useState<FormErrors<F>>({});

  useEffect(() => {
    const form = formRef.current;
    // No field at fault (a refusal such as tier_required): the form's alert, scrolled into view.
    (form?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form?.querySelector<HTMLElement>('[role="alert"]'))?.focus();
  }, [errors, formRef]);

  return {
    errors,
    /** Shows these errors (an empty object clears them). */
    set: (found: FormErrors<F>) => setErrors(found),
    /**
     * Checks `fields` against the schema the server enforces, after the form's own checks put their
     * errors in `found`: shows every error found, and returns the parsed input only when there is none.
     */
    check<S extends z.ZodType>(schema: S, fields: unknown, found: FormErrors<F> = {}): z.output<S> | null {
      const parsed = schema.safeParse(fields);
      if (!parsed.success) collectErrors(zodErrors(parsed.error), labels, labelFor, found);
      setErrors({ ...found });
      return parsed.success && Object.keys(found).length === 0 ? parsed.data : null;
    },
    /** Shows a failed call: field errors next to their fields, anything else above the buttons. */
    fromServer: (error: unknown) => setErrors(serverErrors(error, labels, labelFor)),
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

/**
 * The foot of a dialog's form, kept in view while the form scrolls: Cancel, and the submit button,
 * which says what it is doing while the form is pending.
 */
export function DialogButtons({ onCancel, pending, label, pendingLabel = "Saving…" }: { onCancel: () => void; pending: boolean; label: string; pendingLabel?: string }) {
  return (
    <div className="sticky bottom-0 -mx-6 -mb-6 flex justify-end gap-3 border-t border-slate-200 bg-white px-6 py-4 dark:border-slate-800 dark:bg-slate-900">
      <button type="button" onClick={onCancel} className={secondaryButton}>
        Cancel
      </button>
      <button type="submit" disabled={pending} className={primaryButton}>
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}

/** The buttons at the foot of a form on the page. */
export function FormButtonsInline({ children }: { children: ReactNode }) {
  return <div className="flex justify-end gap-3">{children}</div>;
}

/** A group of radios or checkboxes with a legend, a hint and its error. */
export function ChoiceGroup({ legend, hint, error, children }: { legend: ReactNode; hint?: ReactNode; error?: string; children: ReactNode }) {
  const ids = useFieldIds(hint, error);
  return (
    <fieldset aria-describedby={ids.describedBy}>
      <legend className={labelClass}>{legend}</legend>
      <Hint id={ids.hintId} hint={hint} />
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
