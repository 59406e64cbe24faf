"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { createUserInput, type User } from "@/lib/schemas/users";
import { Dialog } from "@/components/ui/dialog";
import { useTRPC } from "@/trpc/react";
import { Choice, ChoiceGroup, DialogButtons, orNull, TextField, useFormErrors } from "@/components/ui/form";
import { FormAlert } from "@/components/ui/states";

// "Create user": a username, an optional email and display name, and either a password or none
// (an OAuth-only user, who signs in through a linked identity).

const LABELS = { username: "Username", email: "Email", display_name: "Display name", password: "Password" };

export function CreateUserDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (user: User) => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Create user" description="The user has no roles and no organizations until you grant them.">
      <CreateUserForm onCancel={onClose} onCreated={onCreated} />
    </Dialog>
  );
}

function CreateUserForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (user: User) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [username, setUsername] = useState("");
  const [email, setEmail] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [signIn, setSignIn] = useState<"password" | "oauth">("password");
  const [password, setPassword] = useState("");
  const create = useMutation(trpc.users.create.mutationOptions({ onSuccess: onCreated, onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = form.check(createUserInput, {
      username,
      email: orNull(email),
      display_name: orNull(displayName),
      password: signIn === "password" ? password : null,
    });
    if (input) create.mutate(input);
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField
        label="Username"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        autoFocus
        autoComplete="off"
        hint="Letters, digits, “.”, “_” and “-”. Used to sign in."
        error={form.errors.username}
      />
      <TextField
        label="Email"
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        autoComplete="off"
        hint="Optional. A verified email at an OAuth provider links that account on its first sign-in."
        error={form.errors.email}
      />
      <TextField label="Display name" value={displayName} onChange={(e) => setDisplayName(e.target.value)} autoComplete="off" error={form.errors.display_name} />
      <ChoiceGroup legend="Sign-in">
        <Choice type="radio" name="sign-in" label="With a password" checked={signIn === "password"} onChange={() => setSignIn("password")} />
        <Choice type="radio" name="sign-in" label="OAuth only (no password)" checked={signIn === "oauth"} onChange={() => setSignIn("oauth")} />
      </ChoiceGroup>
      {signIn === "password" && (
        <TextField
          label="Password"
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
          hint="At least 12 characters. For a generated one, create the user without and use “Reset password” on their page."
          error={form.errors.password}
        />
      )}
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={create.isPending} label="Create user" pendingLabel="Creating…" />
    </form>
  );
}
