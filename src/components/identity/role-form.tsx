"use client";

import {
  createRoleInput,
  updateRoleInput,
  type CreateRoleInput,
  type Role,
  type ROLE_SCOPES,
  type UpdateRoleInput,
} from "@/lib/schemas/roles";
import { isPermission } from "@/lib/permissions";
import { useTRPCClient } from "@/trpc/react";
import { orgPermissionsOnly, PermissionPicker } from "./permission-picker";
import { RadioGroup, TextAreaField, TextField } from "@/components/ui/fields";
import { Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { orNull } from "@/components/ui/form-values";

// A role's form (./role-editor.tsx): name, description, scope (a new role's only) and permissions;
// a built-in role's description alone. `onSaved` gets the role as the server holds it.

const SCOPES = [
  { value: "org", label: "Organization: granted in one organization, org permissions only" },
  { value: "system", label: "System: granted globally" },
];

interface RoleValues {
  name: string;
  description: string;
  scope: (typeof ROLE_SCOPES)[number];
  permissions: string[];
}

export function RoleForm({ role, onSaved }: { role: Role | null; onSaved: (role: Role) => void }) {
  const builtIn = role?.is_built_in === true;
  const client = useTRPCClient();
  const form = useSchemaForm<RoleValues, CreateRoleInput | UpdateRoleInput>({
    schema: role === null ? createRoleInput : updateRoleInput,
    defaultValues: {
      name: role?.name ?? "",
      description: role?.description ?? "",
      scope: role?.scope ?? "org",
      permissions: role?.permissions ?? [],
    },
    toInput: ({ name, description, scope, permissions }) => {
      // Only the permissions the scope allows: switching a new role to "org" drops system ones.
      const chosen = permissions.filter((p) => isPermission(p) && (scope !== "org" || orgPermissionsOnly(p)));
      if (role === null) return { name, description: orNull(description), scope, permissions: chosen };
      return builtIn
        ? { description: orNull(description) }
        : { name, description: orNull(description), permissions: chosen };
    },
    submit: async (input) => {
      onSaved(
        role === null
          ? await client.roles.create.mutate(input as CreateRoleInput)
          : await client.roles.update.mutate({ role_id: role.id, ...input }),
      );
    },
  });
  const scope = form.watch("scope");

  return (
    <Form form={form} label={role ? `Edit ${role.name}` : "Create role"} className="mt-4 max-w-3xl space-y-6">
      {builtIn && (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm dark:border-slate-800 dark:bg-slate-950">
          A built-in role cannot be renamed or deleted, and its permissions follow the catalog. Only its description can
          change.
        </p>
      )}
      <TextField name="name" label="Name" readOnly={builtIn} autoComplete="off" autoFocus={role === null} />
      <TextAreaField name="description" label="Description" rows={2} />
      {role === null ? (
        <RadioGroup
          name="scope"
          legend="Scope"
          hint="Fixed once the role exists: grants depend on it."
          options={SCOPES}
        />
      ) : null}
      <PermissionPicker
        name="permissions"
        legend="Permissions"
        hint={
          scope === "org"
            ? "Org permissions only: the role applies inside the organization it is granted in."
            : "Any catalog permission. Held globally, an org permission applies in every organization."
        }
        offered={scope === "org" ? orgPermissionsOnly : undefined}
        readOnly={builtIn}
      />
      <SubmitRow label={role ? "Save role" : "Create role"} />
    </Form>
  );
}
