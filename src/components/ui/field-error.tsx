import { errorTextClass } from "./styles";

/** The error under a field; give the field aria-describedby={id} and aria-invalid. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className={errorTextClass}>
      {message}
    </p>
  );
}
