"use client";

import { useQuery } from "@tanstack/react-query";
import { createInvitationInput, type CreateInvitationInput, type InvitationWithLink } from "@/lib/schemas/invitations";
import { CheckboxGroup, SelectField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { checkedValues } from "@/components/ui/form-values";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { roleChoicesOptions } from "./queries";

// The invite dialog's form (./invitations-screen.tsx): an address, the org roles it will receive
// and how long the link lasts. The server answers the link, shown once by the screen.

const EXPIRY_DAYS = [1, 3, 7, 14, 30] as const;

export function InviteForm({
  orgId,
  onCancel,
  onInvited,
}: {
  orgId: string;
  onCancel: () => void;
  onInvited: (invitation: InvitationWithLink) => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const form = useSchemaForm<{ email: string; role_ids: string[]; expires_in_days: string }, CreateInvitationInput>({
    schema: createInvitationInput,
    defaultValues: { email: "", role_ids: [], expires_in_days: "7" },
    toInput: ({ expires_in_days, role_ids, ...values }) => ({
      ...values,
      role_ids: checkedValues(role_ids),
      expires_in_days: Number(expires_in_days),
    }),
    submit: async (input) => onInvited(await client.invitations.create.mutate({ org_id: orgId, ...input })),
  });
  return (
    <Form form={form} className="space-y-5">
      <TextField
        name="email"
        label="Email"
        type="email"
        autoFocus
        autoComplete="off"
        hint="The invitation is for this address only: whoever accepts must have it, verified."
      />
      <CheckboxGroup
        name="role_ids"
        legend="Org roles"
        hint={roles.isPending ? "Loading roles…" : "What the person may do here once they join."}
        options={(roles.data?.data ?? []).map((role) => ({
          value: role.id,
          label: role.description ? `${role.name} — ${role.description}` : role.name,
        }))}
        className="mt-2 grid gap-2"
      />
      <SelectField
        name="expires_in_days"
        label="Link expires after"
        options={EXPIRY_DAYS.map((days) => ({ value: String(days), label: days === 1 ? "1 day" : `${days} days` }))}
      />
      <DialogButtons onCancel={onCancel} label="Send invitation" pendingLabel="Inviting…" />
    </Form>
  );
}
