"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { createRoleInput, updateRoleInput, type Role } from "@/lib/schemas/roles";
import { isPermission } from "@/lib/permissions";
import { useTRPC } from "@/trpc/react";
import { orgPermissionsOnly, PermissionPicker } from "./permission-picker";
import { roleOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Choice, ChoiceGroup, orNull, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import { ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { dangerButton, primaryButton, textLink } from "@/components/ui/styles";

// A role's editor: name, description, scope (fixed once created) and its permissions from the
// catalog, grouped by resource with the dangerous ones marked. A built-in role keeps its name and
// its catalog-defined permissions (shown read-only); only its description can change.

const LABELS = { name: "Name", description: "Description", scope: "Scope", permissions: "Permissions" };

export const NewRoleScreen = () => <RoleEditor role={null} />;

export function RoleScreen({ roleId }: { roleId: string }) {
  const trpc = useTRPC();
  const role = useQuery(roleOptions(trpc, roleId));

  if (role.isPending) return <LoadingState label="Loading the role…" />;
  if (role.isError) {
    return (
      <div className="space-y-4">
        <BackLink />
        <ErrorState title="The role could not be loaded." error={role.error} onRetry={() => role.refetch()} />
      </div>
    );
  }
  return <RoleEditor key={role.data.updated_at} role={role.data} />;
}

function BackLink() {
  return (
    <Link href="/console/roles" className={`text-sm ${textLink}`}>
      ← All roles
    </Link>
  );
}

function RoleEditor({ role }: { role: Role | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [name, setName] = useState(role?.name ?? "");
  const [description, setDescription] = useState(role?.description ?? "");
  const [scope, setScope] = useState<"system" | "org">(role?.scope ?? "org");
  const [permissions, setPermissions] = useState<Set<string>>(() => new Set(role?.permissions ?? []));
  const [notice, setNotice] = useState("");
  const [deleting, setDeleting] = useState<Role | null>(null);
  const builtIn = role?.is_built_in === true;
  const offered = scope === "org" ? orgPermissionsOnly : undefined;

  const refresh = () => queryClient.invalidateQueries(trpc.roles.pathFilter());
  const create = useMutation(
    trpc.roles.create.mutationOptions({
      onSuccess: (created) => {
        void refresh();
        router.push(`/console/roles/${created.id}`);
      },
      onError: form.fromServer,
    }),
  );
  const update = useMutation(
    trpc.roles.update.mutationOptions({
      onSuccess: (saved) => {
        setNotice(`Role ${saved.name} saved.`);
        void refresh();
      },
      onError: form.fromServer,
    }),
  );
  const remove = useMutation(trpc.roles.delete.mutationOptions());

  function submit(event: FormEvent) {
    event.preventDefault();
    // Only the permissions the scope allows: switching a new role to "org" drops system ones.
    const chosen = [...permissions].filter((p) => isPermission(p) && (!offered || offered(p)));
    if (role === null) {
      const input = form.check(createRoleInput, { name, description: orNull(description), scope, permissions: chosen });
      if (input) create.mutate(input);
      return;
    }
    const input = form.check(updateRoleInput, builtIn ? { description: orNull(description) } : { name, description: orNull(description), permissions: chosen });
    if (input) update.mutate({ role_id: role.id, ...input });
  }

  const pending = create.isPending || update.isPending;

  return (
    <div>
      <BackLink />
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

      <form ref={formRef} noValidate onSubmit={submit} aria-label={role ? `Edit ${role.name}` : "Create role"} className="mt-4 max-w-3xl space-y-6">
        {builtIn && (
          <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm dark:border-slate-800 dark:bg-slate-950">
            A built-in role cannot be renamed or deleted, and its permissions follow the catalog. Only its description can change.
          </p>
        )}
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} readOnly={builtIn} autoComplete="off" autoFocus={role === null} error={form.errors.name} />
        <TextAreaField label="Description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} error={form.errors.description} />
        {role === null ? (
          <ChoiceGroup legend="Scope" hint="Fixed once the role exists: grants depend on it." error={form.errors.scope}>
            <Choice type="radio" name="role-scope" label="Organization: granted in one organization, org permissions only" checked={scope === "org"} onChange={() => setScope("org")} />
            <Choice type="radio" name="role-scope" label="System: granted globally" checked={scope === "system"} onChange={() => setScope("system")} />
          </ChoiceGroup>
        ) : null}
        <PermissionPicker
          legend="Permissions"
          hint={
            scope === "org"
              ? "Org permissions only: the role applies inside the organization it is granted in."
              : "Any catalog permission. Held globally, an org permission applies in every organization."
          }
          selected={permissions}
          onChange={setPermissions}
          offered={offered}
          readOnly={builtIn}
          error={form.errors.permissions}
        />
        <FormAlert message={form.errors.form} />
        <div className="flex justify-end">
          <button type="submit" disabled={pending} className={primaryButton}>
            {pending ? "Saving…" : role ? "Save role" : "Create role"}
          </button>
        </div>
      </form>

      <ConfirmDialog
        subject={deleting}
        title={(r) => `Delete the role ${r.name}?`}
        body={(r) => <>Everyone who holds {r.name} loses its permissions at once, wherever it was granted. This cannot be undone here.</>}
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
