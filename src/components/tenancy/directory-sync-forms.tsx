"use client";

import { useQuery } from "@tanstack/react-query";
import {
  createScimTokenInput,
  mapScimGroupInput,
  type CreatedScimToken,
  type CreateScimTokenInput,
  type MapScimGroupInput,
  type ScimGroupSummary,
} from "@/lib/schemas/scim";
import { roleChoicesOptions } from "@/components/identity/queries";
import { CheckboxGroup, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { checkedValues } from "@/components/ui/form-values";
import type { EditorControls } from "@/components/ui/resource-section";
import { useTRPC, useTRPCClient } from "@/trpc/react";

// The Directory sync section's forms (./directory-sync-section.tsx), loaded when first opened: a
// new SCIM token (its value is shown once, next), and the org roles a directory group grants.

export function ScimTokenForm({
  orgId,
  controls,
  onCreated,
}: {
  orgId: string;
  controls: EditorControls;
  /** The new token: its value is shown next, this once. */
  onCreated: (token: CreatedScimToken) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ name: string }, CreateScimTokenInput>({
    schema: createScimTokenInput,
    defaultValues: { name: "" },
    submit: async (input) => {
      const created = await client.scim.createToken.mutate({ ...input, org_id: orgId });
      controls.done(`Token ${created.name} created.`);
      onCreated(created);
    },
  });
  return (
    <Form form={form} className="space-y-5">
      <TextField
        name="name"
        label="Name"
        autoComplete="off"
        hint="What the token is for, such as the directory's name (Okta, Entra ID)."
      />
      <DialogButtons onCancel={controls.cancel} label="Create token" pendingLabel="Creating…" />
    </Form>
  );
}

export function GroupRolesForm({
  orgId,
  group,
  controls,
}: {
  orgId: string;
  group: ScimGroupSummary;
  controls: EditorControls;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const form = useSchemaForm<{ role_ids: string[] }, MapScimGroupInput>({
    schema: mapScimGroupInput,
    defaultValues: { role_ids: [...group.role_ids] },
    toInput: (values) => ({ role_ids: checkedValues(values.role_ids) }),
    submit: async (input) => {
      await client.scim.mapGroup.mutate({ ...input, org_id: orgId, group_id: group.id });
      controls.done(
        input.role_ids.length === 0
          ? `${group.display_name} grants no role now.`
          : `The roles of ${group.display_name} are saved.`,
      );
    },
  });
  const orgRoles = roles.data?.data ?? [];
  // A role the group grants stays listed (to be unchecked) even past the first 100 choices.
  const unlisted = group.role_ids.filter((id) => !orgRoles.some((role) => role.id === id));

  return (
    <Form form={form} className="space-y-5">
      {roles.isPending ? (
        <p role="status" className="text-sm">
          Loading roles…
        </p>
      ) : (
        <CheckboxGroup
          name="role_ids"
          legend="Org roles"
          hint="The group's members hold these roles in the organization, and lose them when they leave the group."
          options={[
            ...orgRoles.map((role) => ({ value: role.id, label: role.name })),
            ...unlisted.map((id) => ({ value: id, label: id })),
          ]}
          className="mt-2 grid gap-2"
        />
      )}
      <DialogButtons onCancel={controls.cancel} label="Save roles" pendingLabel="Saving…" />
    </Form>
  );
}
