"use client";

import {
  useId,
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
import { describedBy, FieldError } from "./field-error";
import { useFormBinding } from "./form-binding";
import { errorText, type PlaceLabeller } from "./form-errors";
import { hintClass, inputClass, labelClass } from "./styles";

// The form kit's controls (./form.tsx): each with its label, an optional hint and its error under
// it (aria-describedby, aria-invalid), registered in the surrounding form when it names a field.

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
  const binding = useFormBinding();
  const form = name !== undefined && binding !== null ? { ...binding, name } : null;
  const message = form
    ? errorText(form.errorOf(form.name), subject ?? (typeof label === "string" ? label : form.name), labelFor)
    : error;
  return {
    id,
    hintId: `${id}-hint`,
    errorId: `${id}-error`,
    message,
    // A control's own onChange runs after the form has taken the new value.
    registration: form ? form.register(form.name, { onChange }) : {},
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

/** A list's filter "Show deleted <noun>" (./filter-bar.tsx), for those who may see deleted items. */
export function ShowDeletedField({
  noun,
  filters,
}: {
  noun: string;
  filters: { values: { include_deleted: boolean }; set: (key: "include_deleted", value: boolean) => void };
}) {
  return (
    <CheckboxField
      label={`Show deleted ${noun}`}
      checked={filters.values.include_deleted}
      onChange={(event) => filters.set("include_deleted", event.target.checked)}
      className="pb-2"
    />
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
  const form = useFormBinding();
  const registration =
    name !== undefined && form !== null ? form.register(name, { onChange: input.onChange }) : { name };
  return (
    <label className="flex items-center gap-2 text-sm">
      <input type={type} className="size-4 accent-brand-600" {...input} {...registration} />
      {label}
    </label>
  );
}

type OptionGroupProps = Omit<Parameters<typeof ChoiceGroup>[0], "children"> & {
  name: string;
  options: readonly { value: string; label: ReactNode }[];
  /** Runs when the choice changes. */
  onChange?: InputHTMLAttributes<HTMLInputElement>["onChange"];
};

/** The radios (one value) or checkboxes (a list of values) of one form field, one for each option. */
function OptionGroup({ type, name, options, onChange, ...group }: OptionGroupProps & { type: "radio" | "checkbox" }) {
  return (
    <ChoiceGroup name={name} {...group}>
      {options.map((option) => (
        <Choice
          key={option.value}
          type={type}
          name={name}
          value={option.value}
          label={option.label}
          onChange={onChange}
        />
      ))}
    </ChoiceGroup>
  );
}

/** One value of a form field, picked among `options`; the field's error is shown under them. */
export const RadioGroup = (props: OptionGroupProps) => <OptionGroup type="radio" {...props} />;

/** A form field's list of values, checked among `options`; the field's error is shown under them. */
export const CheckboxGroup = (props: OptionGroupProps) => <OptionGroup type="checkbox" {...props} />;
