"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import {
  useEffect,
  useId,
  useRef,
  useState,
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
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
import { describedBy, FieldError } from "./field-error";
import { FormAlert } from "./states";
import { hintClass, inputClass, labelClass, primaryButton, secondaryButton } from "./styles";

// The console's one form kit: react-hook-form, validated by the zod schema the server enforces
// (through @hookform/resolvers/zod), with the server's field errors (tRPC error data `errors:
// [{path, message}]`) set on the field they name. Each control has a label, an optional hint and
// its error under it (aria-describedby, aria-invalid); after a failed attempt the first field to
// fix takes the focus (else the form's alert).

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
function errorText(error: unknown, subject: string, labelFor?: PlaceLabeller): string | undefined {
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

interface FieldFrameProps {
  label: ReactNode;
  hint?: ReactNode;
  /** The form field it edits (inside a Form): its value, and its errors shown under it. */
  name?: string;
  /** How its errors name it, when the label is not plain text. */
  subject?: string;
  /** Names a place below the field in its errors. */
  labelFor?: PlaceLabeller;
  /** An error of a control outside a Form. */
  error?: string;
  className?: string;
}

/** Ids, the registration in the surrounding form (if any) and the error of one control. */
function useField(
  {
    name,
    label,
    subject,
    labelFor,
    error,
    onChange,
  }: Pick<FieldFrameProps, "name" | "label" | "subject" | "labelFor" | "error"> & {
    onChange?: (event: ChangeEvent<never>) => void;
  },
  hint: ReactNode,
) {
  const id = useId();
  const form = useFormContext();
  const inForm = name !== undefined && form !== null;
  const message = inForm
    ? errorText(get(form.formState.errors, name), subject ?? (typeof label === "string" ? label : name), labelFor)
    : error;
  return {
    id,
    hintId: `${id}-hint`,
    errorId: `${id}-error`,
    message,
    // A control's own onChange runs after the form has taken the new value.
    registration: inForm ? form.register(name, { onChange }) : {},
    aria: {
      "aria-invalid": message ? (true as const) : undefined,
      "aria-describedby": describedBy(hint ? `${id}-hint` : null, message ? `${id}-error` : null),
    },
  };
}

function Hint({ id, hint }: { id: string; hint: ReactNode }) {
  return hint ? (
    <p id={id} className={hintClass}>
      {hint}
    </p>
  ) : null;
}

/** A control's id, its registration in the surrounding form, and its aria attributes. */
type ControlProps = { id: string } & ReturnType<typeof useField>["registration"] & ReturnType<typeof useField>["aria"];

type FrameOwn = FieldFrameProps & { onChange?: (event: ChangeEvent<never>) => void };

/** The props of the frame (label, hint, error) apart from the control's own. */
function split<P extends FrameOwn>({ label, hint, name, subject, labelFor, error, className, ...control }: P) {
  return [{ label, hint, name, subject, labelFor, error, className, onChange: control.onChange }, control] as const;
}

/** A control under its label, with its hint and its error below it. */
function Labelled({
  label,
  hint,
  name,
  subject,
  labelFor,
  error,
  className,
  onChange,
  children,
}: FrameOwn & { children: (control: ControlProps) => ReactNode }) {
  const field = useField({ name, label, subject, labelFor, error, onChange }, hint);
  return (
    <div className={className}>
      <label htmlFor={field.id} className={labelClass}>
        {label}
      </label>
      {children({ id: field.id, ...field.registration, ...field.aria })}
      <Hint id={field.hintId} hint={hint} />
      <FieldError id={field.errorId} message={field.message} />
    </div>
  );
}

const readOnlyClass =
  "read-only:bg-slate-50 read-only:text-slate-600 dark:read-only:bg-slate-950 dark:read-only:text-slate-300";

export function TextField({
  mono = false,
  ...props
}: FieldFrameProps & { mono?: boolean } & Omit<InputHTMLAttributes<HTMLInputElement>, "className" | "name">) {
  const [frame, input] = split(props);
  return (
    <Labelled {...frame}>
      {(control) => (
        <input
          {...input}
          {...control}
          spellCheck={mono ? false : input.spellCheck}
          className={`${inputClass} mt-1 ${readOnlyClass} ${mono ? "font-mono" : ""}`}
        />
      )}
    </Labelled>
  );
}

export function TextAreaField({
  mono = false,
  ...props
}: FieldFrameProps & { mono?: boolean } & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "className" | "name">) {
  const [frame, textarea] = split(props);
  return (
    <Labelled {...frame}>
      {(control) => (
        <textarea
          rows={4}
          spellCheck={mono ? false : undefined}
          {...textarea}
          {...control}
          className={`${inputClass} mt-1 ${mono ? "font-mono text-xs" : ""}`}
        />
      )}
    </Labelled>
  );
}

/** A labelled control with a button beside it (a search's Find, a secret's Copy), and what follows it. */
export function InputRow({
  id,
  label,
  button,
  children,
  after,
}: {
  id: string;
  label: ReactNode;
  button: ReactNode;
  children: ReactNode;
  after?: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <div className="mt-1 flex gap-2">
        {children}
        {button}
      </div>
      {after}
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export const optionsOf = (values: readonly string[], labels?: Readonly<Record<string, string>>): Option[] =>
  values.map((value) => ({ value, label: labels?.[value] ?? value }));

export function SelectField({
  options,
  ...props
}: FieldFrameProps & { options: readonly Option[] } & Omit<
    SelectHTMLAttributes<HTMLSelectElement>,
    "className" | "name"
  >) {
  const [frame, select] = split(props);
  return (
    <Labelled {...frame}>
      {(control) => (
        <select {...select} {...control} className={`${inputClass} mt-1`}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Labelled>
  );
}

export function CheckboxField({
  label,
  hint,
  name,
  subject,
  error,
  className,
  ...rest
}: FieldFrameProps & Omit<InputHTMLAttributes<HTMLInputElement>, "className" | "type" | "name">) {
  const field = useField({ name, label, subject, error, onChange: rest.onChange }, hint);
  return (
    <div className={`flex items-start gap-2 ${className ?? ""}`}>
      <input
        id={field.id}
        type="checkbox"
        {...rest}
        {...field.registration}
        {...field.aria}
        className="mt-0.5 size-4 shrink-0 accent-brand-600"
      />
      <div>
        <label htmlFor={field.id} className="text-sm font-medium">
          {label}
        </label>
        <Hint id={field.hintId} hint={hint} />
        <FieldError id={field.errorId} message={field.message} />
      </div>
    </div>
  );
}

/** A group of radios or checkboxes with a legend, a hint and its error. */
export function ChoiceGroup({
  legend,
  hint,
  name,
  subject,
  labelFor,
  error,
  className = "mt-2 flex flex-wrap gap-x-5 gap-y-2",
  children,
}: Omit<FieldFrameProps, "label" | "className"> & { legend: ReactNode; className?: string; children: ReactNode }) {
  const field = useField({ name, label: legend, subject, labelFor, error }, hint);
  return (
    <fieldset aria-describedby={field.aria["aria-describedby"]}>
      <legend className={labelClass}>{legend}</legend>
      <Hint id={field.hintId} hint={hint} />
      <div className={className} aria-invalid={field.aria["aria-invalid"]} tabIndex={field.message ? -1 : undefined}>
        {children}
      </div>
      <FieldError id={field.errorId} message={field.message} />
    </fieldset>
  );
}

/** A radio or a checkbox; with `name`, one value of that form field. */
export function Choice({
  type,
  label,
  name,
  ...input
}: { type: "radio" | "checkbox"; label: ReactNode; name?: string } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "type" | "name"
>) {
  const form = useFormContext();
  const registration =
    name !== undefined && form !== null ? form.register(name, { onChange: input.onChange }) : { name };
  return (
    <label className="flex items-center gap-2 text-sm">
      <input type={type} className="size-4 accent-brand-600" {...input} {...registration} />
      {label}
    </label>
  );
}

/** A form field edited by a control of its own (a picker), with its error as a sentence. */
export function useFieldController(
  name: string,
  subject: string,
): UseControllerReturn & { message: string | undefined } {
  const controller = useController({ name });
  return { ...controller, message: errorText(get(controller.formState.errors, name), subject) };
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

/** Blank text becomes null (an optional field cleared), the rest is trimmed. */
export const orNull = (value: string): string | null => (value.trim() === "" ? null : value.trim());

/** Blank text becomes null; the rest is kept as typed (a description, a bio). */
export const blankAsNull = (value: string): string | null => (value.trim() === "" ? null : value);

/**
 * A form's values: those of the item it edits (a null text blank), or `blank` for a new one. The
 * keys are blank's, so an item's other fields stay out of the form.
 */
export function valuesFrom<V extends FieldValues>(item: object | null, blank: V): V {
  if (item === null) return blank;
  const own = item as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(blank).map(([key, fallback]) => [key, own[key] ?? (typeof fallback === "string" ? "" : fallback)]),
  ) as V;
}

/** The text fields of a record as a form edits them (null: blank). */
export function textsOf<K extends string>(
  record: { [key in K]?: string | null } | null,
  keys: readonly K[],
): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, record?.[key] ?? ""])) as Record<K, string>;
}

/** Each of these text fields trimmed, blank ones null. */
export function orNullEach<K extends string>(values: Record<K, string>): Record<K, string | null> {
  return Object.fromEntries(Object.entries<string>(values).map(([key, value]) => [key, orNull(value)])) as Record<
    K,
    string | null
  >;
}

/** A comma-separated list typed into one field. */
export const splitList = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

type Json = z.core.util.JSONType;

/** A JSON object typed into a textarea (blank: `{}`); what is not one is reported. */
export function jsonObjectOf(text: string, label: string, report: (message: string) => void): Record<string, Json> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    report(`${label} is not valid JSON: ${(error as Error).message}.`);
    return {};
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    report(`${label} must be a JSON object, like {"temperature": 0.2}.`);
    return {};
  }
  return value as Record<string, Json>;
}
