"use client";

import { addMemberInput, type AddMemberInput, type Member } from "@/lib/schemas/members";
import { grantOrgRoleInput, type GrantOrgRoleInput } from "@/lib/schemas/roles";
import { useTRPCClient } from "@/trpc/react";
import { RoleSelect, UserPicker, type Picked } from "./pickers";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";

// An organization's member forms (./members-screen.tsx): add a member, grant one an org role.

export function AddMemberForm({
  orgId,
  onCancel,
  onAdded,
}: {
  orgId: string;
  onCancel: () => void;
  onAdded: (member: Member) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ user_id: Picked | null }, AddMemberInput>({
    schema: addMemberInput,
    defaultValues: { user_id: null },
    toInput: ({ user_id }, problem) => {
      if (!user_id) problem("user_id", "Pick a user.");
      return { user_id: user_id?.id };
    },
    submit: async (input) => onAdded(await client.members.add.mutate({ org_id: orgId, ...input })),
  });

  return (
    <Form form={form} className="space-y-5">
      <UserPicker name="user_id" />
      <DialogButtons onCancel={onCancel} label="Add member" pendingLabel="Adding…" />
    </Form>
  );
}

export function GrantOrgRoleForm({
  orgId,
  member,
  onCancel,
  onGranted,
}: {
  orgId: string;
  member: Member;
  onCancel: () => void;
  onGranted: (roleName: string) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ role_id: string }, GrantOrgRoleInput>({
    schema: grantOrgRoleInput,
    defaultValues: { role_id: "" },
    toInput: (values, problem) => {
      if (!values.role_id) problem("role_id", "Pick a role.");
      return values;
    },
    submit: async (input) =>
      onGranted(
        (await client.members.grantRole.mutate({ org_id: orgId, user_id: member.user_id, ...input })).role.name,
      ),
  });

  return (
    <Form form={form} className="space-y-5">
      <RoleSelect scope="org" label="Org role" held={new Set(member.roles.map((r) => r.id))} />
      <DialogButtons onCancel={onCancel} label="Grant role" pendingLabel="Granting…" />
    </Form>
  );
}
