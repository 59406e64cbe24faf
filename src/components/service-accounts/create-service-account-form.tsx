"use client";

import {
  createServiceAccountInput,
  type CreateServiceAccountInput,
  type ServiceAccount,
} from "@/lib/schemas/service-accounts";
import { RoleSelect } from "@/components/identity/pickers";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { useTRPCClient } from "@/trpc/react";

// The form that creates a service account (./service-accounts-screen.tsx) with one org role.

export function CreateServiceAccountForm({
  orgId,
  onCancel,
  onCreated,
}: {
  orgId: string;
  onCancel: () => void;
  onCreated: (account: ServiceAccount) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ username: string; display_name: string; role_id: string }, CreateServiceAccountInput>({
    schema: createServiceAccountInput,
    defaultValues: { username: "", display_name: "", role_id: "" },
    toInput: ({ username, display_name, role_id }) => ({
      username,
      display_name: display_name.trim() === "" ? null : display_name,
      role_ids: role_id ? [role_id] : [],
    }),
    submit: async (input) => onCreated(await client.serviceAccounts.create.mutate({ org_id: orgId, ...input })),
  });
  return (
    <Form form={form} className="space-y-5">
      <TextField name="username" label="Username" autoFocus autoComplete="off" hint="For example “ci-deployer”." />
      <TextField name="display_name" label="Display name (optional)" autoComplete="off" />
      <RoleSelect scope="org" label="Org role" />
      <DialogButtons onCancel={onCancel} label="Create service account" pendingLabel="Creating…" />
    </Form>
  );
}
