"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import {
  createRoleInput,
  updateRoleInput,
  type CreateRoleInput,
  type Role,
  type ROLE_SCOPES,
  type UpdateRoleInput,
} from "@/lib/schemas/roles";
import { isPermission } from "@/lib/permissions";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { orgPermissionsOnly, PermissionPicker } from "./permission-picker";
import { roleOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Choice, ChoiceGroup, TextAreaField, TextField } from "@/components/ui/fields";
import { Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { orNull } from "@/components/ui/form-values";
import { BackLink, Loaded, Notice } from "@/components/ui/states";
import { dangerButton } from "@/components/ui/styles";

// A role's editor: name, description, scope (fixed once created) and its permissions from the
// catalog, grouped by resource with the dangerous ones marked. A built-in role keeps its name and
// its catalog-defined permissions (shown read-only); only its description can change.

export const NewRoleScreen = () => <RoleEditor role={null} />;

export function RoleScreen({ roleId }: { roleId: string }) {
  const trpc = useTRPC();
  const role = useQuery(roleOptions(trpc, roleId));

  return (
    <Loaded query={role} what="the role" back={<RolesLink />}>
      {(loaded) => <RoleEditor key={loaded.updated_at} role={loaded} />}
    </Loaded>
  );
}

const RolesLink = () => <BackLink href="/console/roles">All roles</BackLink>;

interface RoleValues {
  name: string;
  description: string;
  scope: (typeof ROLE_SCOPES)[number];
  permissions: string[];
}

function RoleEditor({ role }: { role: Role | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState("");
  const [deleting, setDeleting] = useState<Role | null>(null);
  const builtIn = role?.is_built_in === true;
  const client = useTRPCClient();
  const refresh = () => queryClient.invalidateQueries(trpc.roles.pathFilter());
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
      if (role === null) {
        const created = await client.roles.create.mutate(input as CreateRoleInput);
        void refresh();
        return router.push(`/console/roles/${created.id}`);
      }
      const saved = await client.roles.update.mutate({ role_id: role.id, ...input });
      setNotice(`Role ${saved.name} saved.`);
      void refresh();
    },
  });
  const scope = form.watch("scope");

  const remove = useMutation(trpc.roles.delete.mutationOptions());

  return (
    <div>
      <RolesLink />
      <div className="mt-2 flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">{role ? role.name : "Create role"}</h1>
          {role && (
            <div className="mt-2 flex flex-wrap gap-2">
              <Badge>{role.scope === "system" ? "System role" : "Organization role"}</Badge>
              {builtIn && <Badge tone="brand">Built-in</Badge>}
            </div>
          )}
        </div>
        {role && !builtIn && (
          <button type="button" onClick={() => setDeleting(role)} className={dangerButton}>
            Delete role
          </button>
        )}
      </div>
      <div className="mt-4">
        <Notice text={notice} />
      </div>

      <Form form={form} label={role ? `Edit ${role.name}` : "Create role"} className="mt-4 max-w-3xl space-y-6">
        {builtIn && (
          <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm dark:border-slate-800 dark:bg-slate-950">
            A built-in role cannot be renamed or deleted, and its permissions follow the catalog. Only its description
            can change.
          </p>
        )}
        <TextField name="name" label="Name" readOnly={builtIn} autoComplete="off" autoFocus={role === null} />
        <TextAreaField name="description" label="Description" rows={2} />
        {role === null ? (
          <ChoiceGroup name="scope" legend="Scope" hint="Fixed once the role exists: grants depend on it.">
            <Choice
              type="radio"
              name="scope"
              value="org"
              label="Organization: granted in one organization, org permissions only"
            />
            <Choice type="radio" name="scope" value="system" label="System: granted globally" />
          </ChoiceGroup>
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

      <ConfirmDialog
        subject={deleting}
        title={(r) => `Delete the role ${r.name}?`}
        body={(r) => (
          <>
            Everyone who holds {r.name} loses its permissions at once, wherever it was granted. This cannot be undone
            here.
          </>
        )}
        confirmLabel="Delete role"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(r) => remove.mutateAsync({ role_id: r.id })}
        onDone={() => {
          setDeleting(null);
          void refresh();
          router.push("/console/roles");
        }}
      />
    </div>
  );
}
