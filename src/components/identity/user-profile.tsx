"use client";

import { useMutation } from "@tanstack/react-query";
import { resetPasswordInput, updateUserInput, type PasswordReset, type ResetPasswordInput, type UpdateUserInput, type User } from "@/lib/schemas/users";
import { Dialog } from "@/components/ui/dialog";
import { useTRPC } from "@/trpc/react";
import { Choice, ChoiceGroup, DialogButtons, Form, FormError, orNull, SubmitRow, TextAreaField, TextField, useSchemaForm } from "@/components/ui/form";
import { ShownOnceDialog } from "@/components/ui/secret-field";

// A user's profile form, and the password reset with its show-once generated password.

type ProfileValues = Record<"username" | "email" | "display_name" | "avatar_url" | "locale" | "timezone" | "bio", string>;

export function ProfileForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const trpc = useTRPC();
  const form = useSchemaForm<ProfileValues, UpdateUserInput>({
    schema: updateUserInput,
    defaultValues: {
      username: user.username,
      email: user.email ?? "",
      display_name: user.display_name ?? "",
      avatar_url: user.avatar_url ?? "",
      locale: user.locale ?? "",
      timezone: user.timezone ?? "",
      bio: user.bio ?? "",
    },
    toInput: ({ username, bio, ...rest }) => ({
      username,
      ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, orNull(v)])),
      bio: bio.trim() === "" ? null : bio,
    }),
  });
  const update = useMutation(trpc.users.update.mutationOptions({ onSuccess: onSaved, onError: form.showServerError }));
  const readOnly = user.is_deleted;

  return (
    <Form form={form} onSubmit={(input) => update.mutate({ user_id: user.id, ...input })} label="Profile" className="grid gap-5 sm:grid-cols-2">
      <TextField name="username" label="Username" autoComplete="off" readOnly={readOnly} />
      <TextField name="email" label="Email" type="email" autoComplete="off" readOnly={readOnly} />
      <TextField name="display_name" label="Display name" autoComplete="off" readOnly={readOnly} />
      <TextField name="avatar_url" label="Avatar URL" type="url" autoComplete="off" hint="An https URL." readOnly={readOnly} />
      <TextField name="locale" label="Locale" autoComplete="off" hint="A language tag like en or pt-BR." readOnly={readOnly} />
      <TextField name="timezone" label="Time zone" autoComplete="off" hint="An IANA time zone like Europe/Paris." readOnly={readOnly} />
      <TextAreaField name="bio" label="Bio" rows={3} className="sm:col-span-2" readOnly={readOnly} />
      {!readOnly && <SubmitRow pending={update.isPending} label="Save profile" className="sm:col-span-2" />}
    </Form>
  );
}

export function ResetPasswordDialog({ user, onClose, onDone }: { user: User | null; onClose: () => void; onDone: (reset: PasswordReset) => void }) {
  return (
    <Dialog open={user !== null} onClose={onClose} title={user ? `Reset the password of ${user.username}` : "Reset password"} description="The old password stops working at once.">
      {user && <ResetPasswordForm user={user} onCancel={onClose} onDone={onDone} />}
    </Dialog>
  );
}

function ResetPasswordForm({ user, onCancel, onDone }: { user: User; onCancel: () => void; onDone: (reset: PasswordReset) => void }) {
  const trpc = useTRPC();
  const form = useSchemaForm<{ mode: "generate" | "set"; password: string }, ResetPasswordInput>({
    schema: resetPasswordInput,
    defaultValues: { mode: "generate", password: "" },
    // Without a password the server generates one.
    toInput: ({ mode, password }) => (mode === "set" ? { password } : {}),
  });
  const reset = useMutation(trpc.users.resetPassword.mutationOptions({ onSuccess: onDone, onError: form.showServerError }));

  return (
    <Form form={form} onSubmit={(input) => reset.mutate({ user_id: user.id, ...input })} className="space-y-5">
      <ChoiceGroup legend="New password">
        <Choice type="radio" name="mode" value="generate" label="Generate one (shown once)" />
        <Choice type="radio" name="mode" value="set" label="Set this password" />
      </ChoiceGroup>
      {form.watch("mode") === "set" && <TextField name="password" label="Password" type="password" autoComplete="new-password" hint="At least 12 characters." />}
      <FormError />
      <DialogButtons onCancel={onCancel} pending={reset.isPending} label="Reset password" pendingLabel="Resetting…" />
    </Form>
  );
}

/** The generated password, shown once. */
export function NewPasswordDialog({ reset, onClose }: { reset: PasswordReset | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      secret={reset?.password ?? null}
      title="Copy the new password"
      what="password"
      label={`New password of ${reset?.user.username ?? "the user"}`}
      copyLabel="Copy password"
      doneLabel="I have copied the password"
      onClose={onClose}
    >
      <p className="text-sm text-slate-600 dark:text-slate-300">Hand it to the user over a channel you trust. It works from now on.</p>
    </ShownOnceDialog>
  );
}
