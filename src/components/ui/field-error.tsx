import { errorTextClass } from "./styles";

/** aria-describedby from the ids that apply. */
export const describedBy = (...parts: (string | false | undefined | null)[]) =>
  parts.filter(Boolean).join(" ") || undefined;

/** The error under a field; give the field aria-describedby={id} and aria-invalid. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className={errorTextClass}>
      {message}
    </p>
  );
}
