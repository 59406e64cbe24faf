"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { updateUserInput, type PasswordReset, type User } from "@/lib/schemas/users";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { Choice, ChoiceGroup, DialogButtons, orNull, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import { SecretField, ShownOnceWarning } from "@/components/ui/secret-field";
import { FormAlert } from "@/components/ui/states";

// A user's profile form, and the password reset with its show-once generated password.

const LABELS = {
  username: "Username",
  email: "Email",
  display_name: "Display name",
  avatar_url: "Avatar URL",
  locale: "Locale",
  timezone: "Time zone",
  bio: "Bio",
};
type Field = keyof typeof LABELS;

const valuesOf = (user: User): Record<Field, string> => ({
  username: user.username,
  email: user.email ?? "",
  display_name: user.display_name ?? "",
  avatar_url: user.avatar_url ?? "",
  locale: user.locale ?? "",
  timezone: user.timezone ?? "",
  bio: user.bio ?? "",
});

export function ProfileForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [values, setValues] = useState(() => valuesOf(user));
  const update = useMutation(trpc.users.update.mutationOptions({ onSuccess: onSaved, onError: form.fromServer }));
  const readOnly = user.is_deleted;

  const field = (name: Field) => ({
    value: values[name],
    onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [name]: e.target.value })),
    error: form.errors[name],
    readOnly,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = form.check(updateUserInput, {
      username: values.username,
      email: orNull(values.email),
      display_name: orNull(values.display_name),
      avatar_url: orNull(values.avatar_url),
      locale: orNull(values.locale),
      timezone: orNull(values.timezone),
      bio: values.bio.trim() === "" ? null : values.bio,
    });
    if (input) update.mutate({ user_id: user.id, ...input });
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} aria-label="Profile" className="grid gap-5 sm:grid-cols-2">
      <TextField label="Username" autoComplete="off" {...field("username")} />
      <TextField label="Email" type="email" autoComplete="off" {...field("email")} />
      <TextField label="Display name" autoComplete="off" {...field("display_name")} />
      <TextField label="Avatar URL" type="url" autoComplete="off" hint="An https URL." {...field("avatar_url")} />
      <TextField label="Locale" autoComplete="off" hint="A language tag like en or pt-BR." {...field("locale")} />
      <TextField label="Time zone" autoComplete="off" hint="An IANA time zone like Europe/Paris." {...field("timezone")} />
      <TextAreaField label="Bio" rows={3} className="sm:col-span-2" {...field("bio")} />
      {!readOnly && (
        <div className="flex items-center justify-end gap-3 sm:col-span-2">
          <div className="flex-1">
            <FormAlert message={form.errors.form} />
          </div>
          <button type="submit" disabled={update.isPending} className={primaryButton}>
            {update.isPending ? "Saving…" : "Save profile"}
          </button>
        </div>
      )}
    </form>
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
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors({ password: "Password" }, formRef);
  const [mode, setMode] = useState<"generate" | "set">("generate");
  const [password, setPassword] = useState("");
  const reset = useMutation(trpc.users.resetPassword.mutationOptions({ onSuccess: onDone, onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    if (mode === "set" && password.length < 12) return form.set({ password: "Password must be at least 12 characters." });
    form.set({});
    reset.mutate(mode === "set" ? { user_id: user.id, password } : { user_id: user.id });
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <ChoiceGroup legend="New password">
        <Choice type="radio" name="password-mode" label="Generate one (shown once)" checked={mode === "generate"} onChange={() => setMode("generate")} />
        <Choice type="radio" name="password-mode" label="Set this password" checked={mode === "set"} onChange={() => setMode("set")} />
      </ChoiceGroup>
      {mode === "set" && (
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          hint="At least 12 characters."
          error={form.errors.password}
        />
      )}
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={reset.isPending} label="Reset password" pendingLabel="Resetting…" />
    </form>
  );
}

/** The generated password, shown once. */
export function NewPasswordDialog({ reset, onClose }: { reset: PasswordReset | null; onClose: () => void }) {
  return (
    <Dialog open={reset !== null && reset.password !== null} onClose={onClose} title="Copy the new password" alert>
      {reset?.password && (
        <div className="space-y-4">
          <ShownOnceWarning what="password" />
          <SecretField label={`New password of ${reset.user.username}`} value={reset.password} copyLabel="Copy password" />
          <p className="text-sm text-slate-600 dark:text-slate-300">Hand it to the user over a channel you trust. It works from now on.</p>
          <div className="flex justify-end">
            <button type="button" onClick={onClose} className={primaryButton}>
              I have copied the password
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
