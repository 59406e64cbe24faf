"use client";

import { useWatch } from "react-hook-form";
import { RadioGroup, TextField } from "@/components/ui/fields";

// How a user's password comes to be (creating a user, resetting a password): a choice, one option
// of which is typing it, which shows the new password's field.

const MIN_LENGTH = "At least 12 characters.";

export function PasswordChoice({
  legend,
  name,
  options,
  typed,
  hint,
}: {
  legend: string;
  /** The form field of the choice. */
  name: string;
  options: readonly { value: string; label: string }[];
  /** The option that types the password (the form field `password`). */
  typed: string;
  /** What the field's hint says after the rule every password follows. */
  hint?: string;
}) {
  const chosen: unknown = useWatch({ name });
  return (
    <>
      <RadioGroup legend={legend} name={name} options={options} />
      {chosen === typed && (
        <TextField
          name="password"
          label="Password"
          type="password"
          autoComplete="new-password"
          hint={hint ? `${MIN_LENGTH} ${hint}` : MIN_LENGTH}
        />
      )}
    </>
  );
}
