"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { Role } from "@/lib/schemas/roles";
import { useTRPC } from "@/trpc/react";
import { roleOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { BackLink, Loaded, Notice } from "@/components/ui/states";
import { dangerButton } from "@/components/ui/styles";

// A role's editor: name, description, scope (fixed once created) and its permissions from the
// catalog, grouped by resource with the dangerous ones marked. A built-in role keeps its name and
// its catalog-defined permissions (shown read-only); only its description can change. The form
// (with the form library and its validation) loads in the browser after the page, not with it.

const RoleForm = onDemand(() => import("./role-form").then((m) => m.RoleForm), {
  ssr: false,
  loading: () => <FormLoading />,
});

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

function RoleEditor({ role }: { role: Role | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState("");
  const [deleting, setDeleting] = useState<Role | null>(null);
  const builtIn = role?.is_built_in === true;
  const refresh = () => queryClient.invalidateQueries(trpc.roles.pathFilter());
  const onSaved = (saved: Role) => {
    void refresh();
    if (role === null) router.push(`/console/roles/${saved.id}`);
    else setNotice(`Role ${saved.name} saved.`);
  };

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

      <RoleForm role={role} onSaved={onSaved} />

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
