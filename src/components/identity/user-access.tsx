"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { UserOrganization } from "@/lib/schemas/members";
import type { Grant } from "@/lib/schemas/roles";
import type { User } from "@/lib/schemas/users";
import { useTRPC } from "@/trpc/react";
import { RemovalWarning, RoleBadges, RoleName } from "./parts";
import { effectivePermissionsOptions, userGrantsOptions, userOrganizationsOptions } from "./queries";
import { Badge, DangerousBadge } from "@/components/ui/badge";
import { ResourceSection } from "@/components/ui/resource-section";
import { HeadedSection } from "@/components/ui/page-header";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { mutedText, textLink } from "@/components/ui/styles";
import { DataTable, td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// What a user may do: the organizations they belong to, the roles granted to them (globally or in
// one organization), and the permissions that come out of it, each with the roles it comes from.
// The forms (with their validation) load when first opened, not with the page.

const AddMembershipForm = onDemand(() => import("./user-access-forms").then((m) => m.AddMembershipForm), {
  loading: () => <FormLoading />,
});
const GrantRoleForm = onDemand(() => import("./user-access-forms").then((m) => m.GrantRoleForm), {
  loading: () => <FormLoading />,
});

/** Every query that shows who holds what: refreshed after any change of memberships or grants. */
function useRefreshAccess() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.users.organizations.pathFilter()),
      queryClient.invalidateQueries(trpc.roles.grants.pathFilter()),
      queryClient.invalidateQueries(trpc.roles.effective.pathFilter()),
      queryClient.invalidateQueries(trpc.members.pathFilter()),
    ]);
}

// Memberships -------------------------------------------------------------------------------

export function MembershipsSection({ user, onNotice }: { user: User; onNotice: (text: string) => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshAccess();
  const orgs = useQuery(userOrganizationsOptions(trpc, user.id));
  const remove = useMutation(trpc.members.remove.mutationOptions());
  return (
    <ResourceSection<UserOrganization>
      title="Organizations"
      description="Org roles count only in organizations the user belongs to. Removing a membership removes the roles granted there."
      className="mt-10"
      notice={onNotice}
      query={orgs}
      caption={`Organizations of ${user.username}`}
      columns={["Organization", "Org roles there", "Joined"]}
      rowKey={(org) => org.org_id}
      itemName={(org) => `from ${org.name}`}
      removeLabel="Remove"
      cells={(org) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            <Link href={`/console/organizations/${org.org_id}/members`} className={textLink}>
              {org.name}
            </Link>
            {org.display_name && org.display_name !== org.name && (
              <span className={`block text-xs ${mutedText}`}>{org.display_name}</span>
            )}
          </th>
          <td className={td}>
            <RoleBadges roles={org.roles} />
          </td>
          <WhenCell iso={org.created_at} />
        </>
      )}
      empty={{
        title: `${user.username} belongs to no organization.`,
        body: "Add them to one to grant them its org roles.",
      }}
      create={{ label: "Add to organization" }}
      editor={{
        createOnly: true,
        title: () => `Add ${user.username} to an organization`,
        description: () => "Within the organization tier's member quota.",
        form: (_none, controls) => (
          <AddMembershipForm
            user={user}
            onCancel={controls.cancel}
            onAdded={(orgName) => controls.done(`${user.username} added to ${orgName}.`)}
          />
        ),
      }}
      remove={{
        title: (org) => `Remove ${user.username} from ${org.name}?`,
        body: (org) => <RemovalWarning username={user.username} where={`in ${org.name}`} roles={org.roles} />,
        confirmLabel: "Remove from organization",
        pendingLabel: "Removing…",
        run: (org) => remove.mutateAsync({ org_id: org.org_id, user_id: user.id }),
        notice: (org) => `${user.username} removed from ${org.name}.`,
      }}
      refresh={refresh}
    />
  );
}

// Grants --------------------------------------------------------------------------------------

export function GrantsSection({ user, onNotice }: { user: User; onNotice: (text: string) => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshAccess();
  const grants = useQuery(userGrantsOptions(trpc, user.id));
  const revoke = useMutation(trpc.roles.revoke.mutationOptions());
  const where = (grant: Grant) => (grant.org_id === null ? "globally" : `in ${grant.org_name ?? "an organization"}`);
  return (
    <ResourceSection<Grant>
      title="Roles"
      description="A system role is granted globally; an org role in one organization the user belongs to."
      className="mt-10"
      notice={onNotice}
      noun="role grants"
      query={grants}
      caption={`Role grants of ${user.username}`}
      columns={["Role", "Scope", "Where", "Granted"]}
      itemName={(grant) => `${grant.role.name} ${where(grant)}`}
      removeLabel="Revoke"
      cells={(grant) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            <RoleName role={grant.role} />
          </th>
          <td className={td}>{grant.role.scope === "system" ? "System" : "Organization"}</td>
          <td className={td}>
            {grant.org_id === null ? (
              "Globally"
            ) : (
              <Link href={`/console/organizations/${grant.org_id}/members`} className={textLink}>
                {grant.org_name}
              </Link>
            )}
          </td>
          <WhenCell iso={grant.created_at} />
        </>
      )}
      empty={{
        title: `${user.username} holds no role.`,
        body: "Grant a system role (globally) or an org role (in one organization).",
      }}
      create={{ label: "Grant role" }}
      editor={{
        createOnly: true,
        title: () => `Grant a role to ${user.username}`,
        form: (_none, controls) => (
          <GrantRoleForm
            user={user}
            onCancel={controls.cancel}
            onGranted={(grant) => controls.done(`${grant.role.name} granted to ${user.username} ${where(grant)}.`)}
          />
        ),
      }}
      remove={{
        title: (grant) => `Revoke ${grant.role.name} ${where(grant)}?`,
        body: (grant) => (
          <>
            {user.username} loses the permissions of {grant.role.name} {where(grant)} at once, unless another role
            grants them too.
          </>
        ),
        confirmLabel: "Revoke role",
        pendingLabel: "Revoking…",
        run: (grant) => revoke.mutateAsync({ user_id: user.id, grant_id: grant.id }),
        notice: (grant) => `${grant.role.name} revoked from ${user.username} ${where(grant)}.`,
      }}
      refresh={refresh}
    />
  );
}

// Effective permissions ------------------------------------------------------------------------

interface Held {
  permission: string;
  dangerous: boolean;
  sources: { role_id: string; role_name: string; org_id: string | null }[];
}

function HeldTable({
  caption,
  held,
  orgNames,
}: {
  caption: string;
  held: Held[];
  orgNames: ReadonlyMap<string, string>;
}) {
  if (held.length === 0) return <p className={`text-sm ${mutedText}`}>None.</p>;
  return (
    <DataTable caption={`${caption}`} columns={["Permission", "From"]}>
      {held.map((p) => (
        <tr key={p.permission}>
          <th scope="row" className={`${td} text-left font-normal`}>
            <code className="font-mono text-sm wrap-anywhere">{p.permission}</code>
            {p.dangerous && (
              <span className="ml-2">
                <DangerousBadge />
              </span>
            )}
          </th>
          <td className={td}>
            <ul className="flex flex-wrap gap-1">
              {p.sources.map((s) => (
                <li key={`${s.role_id}-${s.org_id ?? "global"}`}>
                  <Badge tone={s.org_id === null ? "neutral" : "brand"}>
                    {s.role_name}{" "}
                    {s.org_id === null ? "(globally)" : `(in ${orgNames.get(s.org_id) ?? "an organization"})`}
                  </Badge>
                </li>
              ))}
            </ul>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function EffectivePermissionsSection({ user }: { user: User }) {
  const trpc = useTRPC();
  const effective = useQuery(effectivePermissionsOptions(trpc, user.id));

  function content() {
    if (effective.isPending) return <LoadingState label="Loading effective permissions…" />;
    if (effective.isError)
      return (
        <ErrorState
          title="The effective permissions could not be loaded."
          error={effective.error}
          onRetry={() => effective.refetch()}
        />
      );
    const view = effective.data;
    const orgNames = new Map(view.organizations.map((o) => [o.id, o.name]));
    return (
      <div className="space-y-6">
        {view.is_sys_admin && (
          <p className="rounded-md border border-brand-100 bg-brand-50 px-4 py-3 text-sm dark:border-brand-900 dark:bg-brand-900/40">
            <strong className="font-semibold">{user.username} is a sys_admin</strong>: they hold every permission,
            everywhere.
          </p>
        )}
        {view.is_sys_admin ? (
          // The banner says it all; the list (every permission, each from the same role) is there on demand.
          <details>
            <summary className="cursor-pointer text-sm font-semibold">
              Globally{" "}
              <span className={`font-normal ${mutedText}`}>(all {view.global.length} permissions, as a sys_admin)</span>
            </summary>
            <div className="mt-2">
              <HeldTable
                caption={`Permissions ${user.username} holds globally`}
                held={view.global}
                orgNames={orgNames}
              />
            </div>
          </details>
        ) : (
          <div>
            <h3 className="mb-2 text-sm font-semibold">Globally</h3>
            <HeldTable caption={`Permissions ${user.username} holds globally`} held={view.global} orgNames={orgNames} />
          </div>
        )}
        {view.organizations.map((org) => (
          <details key={org.id} className="group">
            <summary className="cursor-pointer text-sm font-semibold">
              In {org.name}{" "}
              <span className={`font-normal ${mutedText}`}>
                ({org.permissions.length} {org.permissions.length === 1 ? "permission" : "permissions"})
              </span>
            </summary>
            <div className="mt-2">
              <HeldTable
                caption={`Permissions ${user.username} holds in ${org.name}`}
                held={org.permissions}
                orgNames={orgNames}
              />
            </div>
          </details>
        ))}
      </div>
    );
  }

  return (
    <HeadedSection
      title="Effective permissions"
      level={2}
      className="mt-10"
      description="What the user may do now, globally and in each of their organizations, and the roles each permission comes from. Dangerous permissions never reach an API key."
    >
      <div className="mt-4">{content()}</div>
    </HeadedSection>
  );
}
