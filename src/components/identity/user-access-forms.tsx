"use client";

import { useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { memberParams } from "@/lib/schemas/members";
import { grantRoleInput, type Grant, type GrantRoleInput, type ROLE_SCOPES } from "@/lib/schemas/roles";
import type { User } from "@/lib/schemas/users";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { OrganizationPicker, RoleSelect, type Picked } from "./pickers";
import { userOrganizationsOptions } from "./queries";
import { RadioGroup, SelectField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";

// A user's access forms (./user-access.tsx): add the user to an organization, grant them a role.

export function AddMembershipForm({
  user,
  onCancel,
  onAdded,
}: {
  user: User;
  onCancel: () => void;
  onAdded: (orgName: string) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ org_id: Picked | null }, z.output<typeof memberParams>>({
    schema: memberParams,
    defaultValues: { org_id: null },
    toInput: ({ org_id }, problem) => {
      if (!org_id) problem("org_id", "Pick an organization.");
      return { org_id: org_id?.id, user_id: user.id };
    },
    submit: async (input) => {
      await client.members.add.mutate(input);
      onAdded(form.getValues("org_id")?.label ?? "");
    },
  });

  return (
    <Form form={form} className="space-y-5">
      <OrganizationPicker name="org_id" />
      <DialogButtons onCancel={onCancel} label="Add to organization" pendingLabel="Adding…" />
    </Form>
  );
}

const ROLE_KINDS = [
  { value: "org", label: "Organization role, in one organization" },
  { value: "system", label: "System role, globally" },
];

export function GrantRoleForm({
  user,
  onCancel,
  onGranted,
}: {
  user: User;
  onCancel: () => void;
  onGranted: (grant: Grant) => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const orgs = useQuery(userOrganizationsOptions(trpc, user.id));
  const form = useSchemaForm<{ scope: (typeof ROLE_SCOPES)[number]; role_id: string; org_id: string }, GrantRoleInput>({
    schema: grantRoleInput,
    defaultValues: { scope: "org", role_id: "", org_id: "" },
    toInput: ({ scope, role_id, org_id }, problem) => {
      if (!role_id) problem("role_id", "Pick a role.");
      if (scope === "org" && !org_id) problem("org_id", "Pick the organization the role applies in.");
      return { role_id, org_id: scope === "org" ? org_id : null };
    },
    submit: async (input) => onGranted(await client.roles.grant.mutate({ user_id: user.id, ...input })),
  });
  const scope = form.watch("scope");
  const noOrganizations = scope === "org" && orgs.data?.data.length === 0;
  // Another kind of role: the role picked before is not one of it.
  const clearRole = () => form.setValue("role_id", "");

  return (
    <Form form={form} className="space-y-5">
      <RadioGroup legend="Kind of role" name="scope" options={ROLE_KINDS} onChange={clearRole} />
      <RoleSelect key={scope} scope={scope} />
      {scope === "org" && (
        <SelectField
          name="org_id"
          label="Organization"
          disabled={noOrganizations}
          options={[
            { value: "", label: orgs.isPending ? "Loading organizations…" : "Pick an organization" },
            ...(orgs.data?.data ?? []).map((org) => ({ value: org.org_id, label: org.name })),
          ]}
          hint={
            noOrganizations
              ? `${user.username} belongs to no organization yet: add them to one first.`
              : "Only organizations the user belongs to."
          }
        />
      )}
      <DialogButtons onCancel={onCancel} label="Grant role" pendingLabel="Granting…" />
    </Form>
  );
}
