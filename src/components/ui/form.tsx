"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import {
  FormProvider,
  get,
  set,
  useController,
  useForm,
  useFormContext,
  type DefaultValues,
  type FieldErrors,
  type FieldPath,
  type FieldValues,
  type Resolver,
  type SubmitHandler,
  type UseControllerReturn,
  type UseFormReturn,
} from "react-hook-form";
import type { z } from "zod";
import { fieldErrorsOf, messageOf } from "@/trpc/react";
import { FormBindingContext, type FormBinding } from "./form-binding";
import { errorText, sentence } from "./form-errors";
import { FormAlert } from "./states";
import { primaryButton, secondaryButton } from "./styles";

// The console's one form kit: react-hook-form validated by the zod schema the server enforces, the
// server's field errors set on the fields they name, each control with its label, hint and error,
// and the focus on the first field to fix after a failed attempt. Controls: ./fields.tsx; text to
// values: ./form-values.ts; error wording: ./form-errors.ts. It brings the form library with it,
// so screens load their forms on demand (./form-loading.tsx).

let resolverModule: Promise<typeof import("@hookform/resolvers/zod")> | undefined;
const loadResolver = () => (resolverModule ??= import("@hookform/resolvers/zod"));

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
  // The resolver is loaded with the first check (a submit), not with the page.
  const validate: Resolver<FieldValues, unknown, O> = async (...args) =>
    (
      (await loadResolver()).zodResolver(schema as z.ZodType<FieldValues, FieldValues>) as unknown as Resolver<
        FieldValues,
        unknown,
        O
      >
    )(...args);
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
  const binding = { register: form.register, errorOf: (name: string) => get(form.formState.errors, name) };
  return (
    <FormProvider {...form}>
      <FormBindingContext.Provider value={binding as FormBinding}>
        <form
          ref={ref}
          noValidate
          aria-label={label}
          onSubmit={form.handleSubmit(form.send, form.failed)}
          className={className}
        >
          {children}
        </form>
      </FormBindingContext.Provider>
    </FormProvider>
  );
}

/** What failed the form as a whole (no field named), above its buttons. */
export function FormError() {
  const { formState } = useFormContext();
  return <FormAlert message={formState.errors.root?.server?.message} />;
}

/** A form field edited by a control of its own (a picker), with its error as a sentence. */
export function useFieldController(
  name: string,
  subject: string,
): UseControllerReturn & { message: string | undefined } {
  const controller = useController({ name });
  return { ...controller, message: errorText(get(controller.formState.errors, name), subject) };
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
