"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useRef, useState, type ReactNode } from "react";
import {
  FormProvider,
  set,
  useForm,
  useFormContext,
  type DefaultValues,
  type FieldErrors,
  type FieldPath,
  type FieldValues,
  type Resolver,
  type SubmitHandler,
  type UseFormReturn,
} from "react-hook-form";
import type { z } from "zod";
import { fieldErrorsOf, messageOf } from "@/trpc/react";
import { FormAlert } from "./states";
import { primaryButton, secondaryButton } from "./styles";

// The console's one form kit: react-hook-form, validated by the zod schema the server enforces
// (through @hookform/resolvers/zod), with the server's field errors (tRPC error data `errors:
// [{path, message}]`) set on the field they name. Each control has a label, an optional hint and
// its error under it (aria-describedby, aria-invalid); after a failed attempt the first field to
// fix takes the focus (else the form's alert).
// Its controls are in ./fields.tsx, the helpers between typed text and values in ./form-values.ts.

/** "must not be empty" on Name reads "Name must not be empty."; a whole sentence stays one. */
export function sentence(subject: string, message: string, nested = false): string {
  let full: string;
  if (/^(must|is|are|cannot|should|may|says|does|has) /.test(message)) full = `${subject} ${message}`;
  else if (!subject || (/^[A-Z]/.test(message) && !nested)) full = message;
  else full = `${subject}: ${message}`;
  return full.endsWith(".") ? full : `${full}.`;
}

/** Names a place below a field (`redirect_uris.1` → "Redirect URI 2"). */
export type PlaceLabeller = (rest: string[]) => string;

const NOT_ERRORS = new Set(["message", "type", "types"]);

/** Every error at and below a field, as sentences that name where they are. */
export function errorText(error: unknown, subject: string, labelFor?: PlaceLabeller): string | undefined {
  const lines: string[] = [];
  const walk = (node: unknown, rest: string[]) => {
    if (!node || typeof node !== "object") return;
    const { message } = node as { message?: unknown };
    if (typeof message === "string" && message !== "") {
      const place = rest.length === 0 ? subject : (labelFor?.(rest) ?? `${subject} (${rest.join(".")})`);
      lines.push(sentence(place, message, rest.length > 0));
    }
    for (const [key, child] of Object.entries(node)) {
      // An error's own members; a place below a field may be called "type" too, but holds an error.
      if (key === "ref" || (NOT_ERRORS.has(key) && (typeof child !== "object" || child === null))) continue;
      walk(child, key === "root" ? rest : [...rest, key]);
    }
  };
  walk(error, []);
  return lines.length > 0 ? [...new Set(lines)].join(" ") : undefined;
}

export interface SchemaFormOptions<V extends FieldValues, O> {
  /** The schema the server enforces; its paths name the form's fields. */
  schema: z.ZodType;
  defaultValues: DefaultValues<V>;
  /**
   * The schema's input made of the form's values (blank text → null, lists split, JSON parsed).
   * `problem` reports what cannot be converted, next to its field.
   */
  toInput?: (values: V, problem: (field: FieldPath<V>, message: string) => void) => unknown;
  /** Sends the schema's output (a tRPC call) and does what follows; its failure is shown in the form. */
  submit: (input: O) => Promise<unknown>;
}

export type SchemaForm<V extends FieldValues, O> = UseFormReturn<V, unknown, O> & {
  /** Sends the form (its submit handler). */
  send: SubmitHandler<O>;
  /** Shows a failed call: field errors next to their fields, anything else above the buttons. */
  showServerError: (error: unknown) => void;
  /** Counts the failed attempts: each one takes the keyboard to the first field to fix. */
  failures: number;
  failed: () => void;
};

export function useSchemaForm<V extends FieldValues, O = unknown>({
  schema,
  defaultValues,
  toInput,
  submit,
}: SchemaFormOptions<V, O>): SchemaForm<V, O> {
  const [failures, setFailures] = useState(0);
  const failed = () => setFailures((n) => n + 1);
  const validate = zodResolver(schema as z.ZodType<FieldValues, FieldValues>) as unknown as Resolver<
    FieldValues,
    unknown,
    O
  >;
  const resolver: Resolver<V, unknown, O> = async (values, context, options) => {
    const problems: [string, string][] = [];
    const input = toInput ? toInput(values, (field, message) => problems.push([field, message])) : values;
    const result = await validate(input as FieldValues, context, options as never);
    const errors: Record<string, unknown> = { ...result.errors };
    for (const [field, message] of problems) set(errors, field, { type: "value", message });
    // An error of no field the form shows is said above its buttons rather than kept silent.
    const unshown = Object.keys(errors).filter((key) => !Object.hasOwn(values, key));
    if (unshown.length > 0) {
      set(errors, "root.server", {
        type: "value",
        message: unshown.map((key) => errorText(errors[key], key)).join(" "),
      });
      for (const key of unshown) delete errors[key];
    }
    if (Object.keys(errors).length === 0) return result as Awaited<ReturnType<Resolver<V, unknown, O>>>;
    return { values: {}, errors: errors as FieldErrors<V> };
  };
  const form = useForm<V, unknown, O>({ defaultValues, resolver, shouldFocusError: false });

  function showServerError(error: unknown) {
    const unplaced: string[] = [];
    const placed = fieldErrorsOf(error).filter(({ path, message }) => {
      const head = path.split(".")[0] ?? "";
      const field = Object.hasOwn(form.getValues(), head) ? (path as FieldPath<V>) : undefined;
      if (field === undefined) unplaced.push(sentence(path || "The request", message));
      else form.setError(field, { type: "server", message });
      return field !== undefined;
    });
    if (unplaced.length > 0 || placed.length === 0) {
      form.setError("root.server", {
        type: "server",
        message: unplaced.length > 0 ? unplaced.join(" ") : messageOf(error),
      });
    }
    failed();
  }

  // Awaited, so that the form counts as submitting (its buttons say so) until the call is done.
  const send: SubmitHandler<O> = async (input) => {
    try {
      await submit(input);
    } catch (error) {
      showServerError(error);
    }
  };

  return { ...form, send, showServerError, failures, failed };
}

/** A form of the kit: submits the schema's output, or shows what to fix and focuses it. */
export function Form<V extends FieldValues, O>({
  form,
  className,
  label,
  children,
}: {
  form: SchemaForm<V, O>;
  className?: string;
  label?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLFormElement>(null);
  const focused = useRef(0);
  const { failures } = form;
  // After each render: a failure not yet answered takes the focus to what to fix, once the errors
  // that came with it are on the page (they may arrive a render after the failure is counted).
  useEffect(() => {
    if (failures === focused.current) return;
    const element = ref.current;
    const target =
      element?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      element?.querySelector<HTMLElement>('[role="alert"]');
    if (!target) return;
    focused.current = failures;
    target.focus();
  });
  return (
    <FormProvider {...form}>
      <form
        ref={ref}
        noValidate
        aria-label={label}
        onSubmit={form.handleSubmit(form.send, form.failed)}
        className={className}
      >
        {children}
      </form>
    </FormProvider>
  );
}

/** What failed the form as a whole (no field named), above its buttons. */
export function FormError() {
  const { formState } = useFormContext();
  return <FormAlert message={formState.errors.root?.server?.message} />;
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
 * The foot of a dialog's form: what failed the form as a whole, then (kept in view while the form
 * scrolls) Cancel and the submit button, which says what it is doing while the form is sent.
 */
export function DialogButtons({
  onCancel,
  label,
  pendingLabel = "Saving…",
}: {
  onCancel: () => void;
  label: string;
  pendingLabel?: string;
}) {
  const pending = useFormContext().formState.isSubmitting;
  return (
    <>
      <FormError />
      <div className="sticky bottom-0 -mx-6 -mb-6 flex justify-end gap-3 border-t border-slate-200 bg-white px-6 py-4 dark:border-slate-800 dark:bg-slate-900">
        <button type="button" onClick={onCancel} className={secondaryButton}>
          Cancel
        </button>
        <button type="submit" disabled={pending} className={primaryButton}>
          {pending ? pendingLabel : label}
        </button>
      </div>
    </>
  );
}

/** The submit button of a form on the page, after the form's alert. */
export function SubmitRow({
  label,
  pendingLabel = "Saving…",
  disabled = false,
  className = "",
}: {
  label: string;
  pendingLabel?: string;
  disabled?: boolean;
  className?: string;
}) {
  const pending = useFormContext().formState.isSubmitting;
  return (
    <div className={`flex items-center justify-end gap-3 ${className}`}>
      <div className="flex-1">
        <FormError />
      </div>
      <button type="submit" disabled={pending || disabled} className={primaryButton}>
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}
