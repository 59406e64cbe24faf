import { createContext, useContext } from "react";
import type { FieldValues, UseFormRegister } from "react-hook-form";

// What a control (./fields.tsx) needs of the form around it: its registration and its errors. The
// form kit (./form.tsx) provides it, so that the controls themselves do not import the form
// library: a control used outside a form (a list's filter) leaves it out of its page.

export interface FormBinding {
  register: UseFormRegister<FieldValues>;
  /** The errors at a field's path (nested errors below it included). */
  errorOf: (name: string) => unknown;
}

export const FormBindingContext = createContext<FormBinding | null>(null);

/** The surrounding form's binding; null outside a form. */
export const useFormBinding = () => useContext(FormBindingContext);
