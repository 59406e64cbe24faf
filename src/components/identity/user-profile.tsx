"use client";

import {
  resetPasswordInput,
  updateUserInput,
  type PasswordReset,
  type ResetPasswordInput,
  type UpdateUserInput,
  type User,
} from "@/lib/schemas/users";
import { Dialog } from "@/components/ui/dialog";
import { useTRPCClient } from "@/trpc/react";
import { TextAreaField, TextField } from "@/components/ui/fields";
import { PasswordChoice } from "./password-choice";
import { DialogButtons, Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, orNullEach, textsOf } from "@/components/ui/form-values";
import { ShownOnceDialog } from "@/components/ui/secret-field";

// A user's profile form, and the password reset with its show-once generated password.

type ProfileValues = Record<
  "username" | "email" | "display_name" | "avatar_url" | "locale" | "timezone" | "bio",
  string
>;

const PROFILE_FIELDS = ["email", "display_name", "avatar_url", "locale", "timezone", "bio"] as const;

export function ProfileForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const client = useTRPCClient();
  const form = useSchemaForm<ProfileValues, UpdateUserInput>({
    schema: updateUserInput,
    defaultValues: { username: user.username, ...textsOf(user, PROFILE_FIELDS) },
    toInput: ({ username, bio, ...rest }) => ({ username, ...orNullEach(rest), bio: blankAsNull(bio) }),
    submit: async (input) => onSaved(await client.users.update.mutate({ user_id: user.id, ...input })),
  });
  const readOnly = user.is_deleted;

  return (
    <Form form={form} label="Profile" className="grid gap-5 sm:grid-cols-2">
      <TextField name="username" label="Username" autoComplete="off" readOnly={readOnly} />
      <TextField name="email" label="Email" type="email" autoComplete="off" readOnly={readOnly} />
      <TextField name="display_name" label="Display name" autoComplete="off" readOnly={readOnly} />
      <TextField
        name="avatar_url"
        label="Avatar URL"
        type="url"
        autoComplete="off"
        hint="An https URL."
        readOnly={readOnly}
      />
      <TextField
        name="locale"
        label="Locale"
        autoComplete="off"
        hint="A language tag like en or pt-BR."
        readOnly={readOnly}
      />
      <TextField
        name="timezone"
        label="Time zone"
        autoComplete="off"
        hint="An IANA time zone like Europe/Paris."
        readOnly={readOnly}
      />
      <TextAreaField name="bio" label="Bio" rows={3} className="sm:col-span-2" readOnly={readOnly} />
      {!readOnly && <SubmitRow label="Save profile" className="sm:col-span-2" />}
    </Form>
  );
}

export function ResetPasswordDialog({
  user,
  onClose,
  onDone,
}: {
  user: User | null;
  onClose: () => void;
  onDone: (reset: PasswordReset) => void;
}) {
  return (
    <Dialog
      open={user !== null}
      onClose={onClose}
      title={user ? `Reset the password of ${user.username}` : "Reset password"}
      description="The old password stops working at once."
    >
      {user && <ResetPasswordForm user={user} onCancel={onClose} onDone={onDone} />}
    </Dialog>
  );
}

const NEW_PASSWORD = [
  { value: "generate", label: "Generate one (shown once)" },
  { value: "set", label: "Set this password" },
];

function ResetPasswordForm({
  user,
  onCancel,
  onDone,
}: {
  user: User;
  onCancel: () => void;
  onDone: (reset: PasswordReset) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ mode: "generate" | "set"; password: string }, ResetPasswordInput>({
    schema: resetPasswordInput,
    defaultValues: { mode: "generate", password: "" },
    // Without a password the server generates one.
    toInput: ({ mode, password }) => (mode === "set" ? { password } : {}),
    submit: async (input) => onDone(await client.users.resetPassword.mutate({ user_id: user.id, ...input })),
  });

  return (
    <Form form={form} className="space-y-5">
      <PasswordChoice legend="New password" name="mode" options={NEW_PASSWORD} typed="set" />
      <DialogButtons onCancel={onCancel} label="Reset password" pendingLabel="Resetting…" />
    </Form>
  );
}

/** The generated password, shown once. */
export function NewPasswordDialog({ reset, onClose }: { reset: PasswordReset | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      secret={reset?.password ?? null}
      title="Copy the new password"
      label={`New password of ${reset?.user.username ?? "the user"}`}
      noun="password"
      onClose={onClose}
    >
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Hand it to the user over a channel you trust. It works from now on.
      </p>
    </ShownOnceDialog>
  );
}
