"use client";

import { createUserInput, type CreateUserInput, type User } from "@/lib/schemas/users";
import { Dialog } from "@/components/ui/dialog";
import { useTRPCClient } from "@/trpc/react";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { orNull } from "@/components/ui/form-values";
import { PasswordChoice } from "./password-choice";

// "Create user": a username, an optional email and display name, and either a password or none
// (an OAuth-only user, who signs in through a linked identity).

interface CreateUserValues {
  username: string;
  email: string;
  display_name: string;
  sign_in: "password" | "oauth";
  password: string;
}

const SIGN_IN = [
  { value: "password", label: "With a password" },
  { value: "oauth", label: "OAuth only (no password)" },
];

export function CreateUserDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (user: User) => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Create user"
      description="The user has no roles and no organizations until you grant them."
    >
      <CreateUserForm onCancel={onClose} onCreated={onCreated} />
    </Dialog>
  );
}

function CreateUserForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (user: User) => void }) {
  const client = useTRPCClient();
  const form = useSchemaForm<CreateUserValues, CreateUserInput>({
    schema: createUserInput,
    defaultValues: { username: "", email: "", display_name: "", sign_in: "password", password: "" },
    toInput: ({ username, email, display_name, sign_in, password }) => ({
      username,
      email: orNull(email),
      display_name: orNull(display_name),
      password: sign_in === "password" ? password : null,
    }),
    submit: async (input) => onCreated(await client.users.create.mutate(input)),
  });

  return (
    <Form form={form} className="space-y-5">
      <TextField
        name="username"
        label="Username"
        autoFocus
        autoComplete="off"
        hint="Letters, digits, “.”, “_” and “-”. Used to sign in."
      />
      <TextField
        name="email"
        label="Email"
        type="email"
        autoComplete="off"
        hint="Optional. A verified email at an OAuth provider links that account on its first sign-in."
      />
      <TextField name="display_name" label="Display name" autoComplete="off" />
      <PasswordChoice
        legend="Sign-in"
        name="sign_in"
        options={SIGN_IN}
        typed="password"
        hint="For a generated one, create the user without and use “Reset password” on their page."
      />
      <DialogButtons onCancel={onCancel} label="Create user" pendingLabel="Creating…" />
    </Form>
  );
}
