"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useRef, useState, type FormEvent } from "react";
import type { UserOrganization } from "@/lib/schemas/members";
import type { Grant } from "@/lib/schemas/roles";
import type { User } from "@/lib/schemas/users";
import { Dialog } from "@/components/ui/dialog";
import { useTRPC } from "@/trpc/react";
import { OrganizationPicker, type Picked } from "./pickers";
import { effectivePermissionsOptions, roleChoicesOptions, userGrantsOptions, userOrganizationsOptions } from "./queries";
import { Badge, DangerousBadge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { Choice, ChoiceGroup, DialogButtons, useFormErrors } from "@/components/ui/form";
import { Section } from "@/components/ui/section";
import { EmptyState, ErrorState, FormAlert, LoadingState } from "@/components/ui/states";
import { inputClass, labelClass, mutedText, secondaryButton, textLink } from "@/components/ui/styles";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { When } from "@/components/ui/values";

// What a user may do: the organizations they belong to, the roles granted to them (globally or in
// one organization), and the permissions that come out of it, each with the roles it comes from.

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
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<UserOrganization | null>(null);

  function content() {
    if (orgs.isPending) return <LoadingState label="Loading organizations…" />;
    if (orgs.isError) return <ErrorState title="The organizations could not be loaded." error={orgs.error} onRetry={() => orgs.refetch()} />;
    if (orgs.data.data.length === 0) return <EmptyState title={`${user.username} belongs to no organization.`} body="Add them to one to grant them its org roles." />;
    return (
      <DataTable caption={`Organizations of ${user.username}`} columns={["Organization", "Org roles there", "Joined", { label: "Actions", hidden: true }]}>
        {orgs.data.data.map((org) => (
          <tr key={org.org_id}>
            <th scope="row" className={`${td} text-left font-medium`}>
              <Link href={`/console/organizations/${org.org_id}/members`} className={textLink}>
                {org.name}
              </Link>
              {org.display_name && org.display_name !== org.name && <span className={`block text-xs ${mutedText}`}>{org.display_name}</span>}
            </th>
            <td className={td}>
              {org.roles.length === 0 ? (
                <span className={mutedText}>None</span>
              ) : (
                <ul className="flex flex-wrap gap-1">
                  {org.roles.map((role) => (
                    <li key={role.id}>
                      <Badge tone="brand">{role.name}</Badge>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td className={td}>
              <When iso={org.created_at} />
            </td>
            <RowActions actions={[{ label: "Remove", ariaLabel: `Remove from ${org.name}`, onClick: () => setRemoving(org), danger: true }]} />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <Section
      id="memberships-heading"
      title="Organizations"
      description="Org roles count only in organizations the user belongs to. Removing a membership removes the roles granted there."
      actions={
        <button type="button" onClick={() => setAdding(true)} className={secondaryButton}>
          Add to organization
        </button>
      }
    >
      {content()}
      <AddMembershipDialog
        user={user}
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(orgName) => {
          setAdding(false);
          onNotice(`${user.username} added to ${orgName}.`);
          void refresh();
        }}
      />
      <ConfirmDialog
        subject={removing}
        title={(org) => `Remove ${user.username} from ${org.name}?`}
        body={(org) => (
          <>
            {user.username} loses every org role in {org.name}
            {org.roles.length > 0 && <> ({org.roles.map((r) => r.name).join(", ")})</>}, at once — their API keys included. Adding them back
            starts from no roles.
          </>
        )}
        confirmLabel="Remove from organization"
        pendingLabel="Removing…"
        onClose={() => setRemoving(null)}
        run={(org) => remove.mutateAsync({ org_id: org.org_id, user_id: user.id })}
        onDone={(org) => {
          setRemoving(null);
          onNotice(`${user.username} removed from ${org.name}.`);
          void refresh();
        }}
      />
    </Section>
  );
}

function AddMembershipDialog({ user, open, onClose, onAdded }: { user: User; open: boolean; onClose: () => void; onAdded: (orgName: string) => void }) {
  return (
    <Dialog open={open} onClose={onClose} title={`Add ${user.username} to an organization`} description="Within the organization tier's member quota.">
      <AddMembershipForm user={user} onCancel={onClose} onAdded={onAdded} />
    </Dialog>
  );
}

function AddMembershipForm({ user, onCancel, onAdded }: { user: User; onCancel: () => void; onAdded: (orgName: string) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors({ org_id: "Organization", user_id: "User" }, formRef);
  const [org, setOrg] = useState<Picked | null>(null);
  const add = useMutation(trpc.members.add.mutationOptions({ onSuccess: () => onAdded(org?.label ?? ""), onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!org) return form.set({ org_id: "Pick an organization." });
    form.set({});
    add.mutate({ org_id: org.id, user_id: user.id });
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <OrganizationPicker picked={org} onPick={setOrg} error={form.errors.org_id} />
      <FormAlert message={form.errors.form ?? form.errors.user_id} />
      <DialogButtons onCancel={onCancel} pending={add.isPending} label="Add to organization" pendingLabel="Adding…" />
    </form>
  );
}

// Grants --------------------------------------------------------------------------------------

export function GrantsSection({ user, onNotice }: { user: User; onNotice: (text: string) => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshAccess();
  const grants = useQuery(userGrantsOptions(trpc, user.id));
  const revoke = useMutation(trpc.roles.revoke.mutationOptions());
  const [granting, setGranting] = useState(false);
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const where = (grant: Grant) => (grant.org_id === null ? "globally" : `in ${grant.org_name ?? "an organization"}`);

  function content() {
    if (grants.isPending) return <LoadingState label="Loading role grants…" />;
    if (grants.isError) return <ErrorState title="The role grants could not be loaded." error={grants.error} onRetry={() => grants.refetch()} />;
    if (grants.data.data.length === 0) return <EmptyState title={`${user.username} holds no role.`} body="Grant a system role (globally) or an org role (in one organization)." />;
    return (
      <DataTable caption={`Role grants of ${user.username}`} columns={["Role", "Scope", "Where", "Granted", { label: "Actions", hidden: true }]}>
        {grants.data.data.map((grant) => (
          <tr key={grant.id}>
            <th scope="row" className={`${td} text-left font-medium`}>
              <Link href={`/console/roles/${grant.role.id}`} className={textLink}>
                {grant.role.name}
              </Link>
              {grant.role.is_built_in && (
                <span className="ml-2">
                  <Badge>Built-in</Badge>
                </span>
              )}
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
            <td className={td}>
              <When iso={grant.created_at} />
            </td>
            <RowActions actions={[{ label: "Revoke", ariaLabel: `Revoke ${grant.role.name} ${where(grant)}`, onClick: () => setRevoking(grant), danger: true }]} />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <Section
      id="grants-heading"
      title="Roles"
      description="A system role is granted globally; an org role in one organization the user belongs to."
      actions={
        <button type="button" onClick={() => setGranting(true)} className={secondaryButton}>
          Grant role
        </button>
      }
    >
      {content()}
      <GrantRoleDialog
        user={user}
        open={granting}
        onClose={() => setGranting(false)}
        onGranted={(grant) => {
          setGranting(false);
          onNotice(`${grant.role.name} granted to ${user.username} ${where(grant)}.`);
          void refresh();
        }}
      />
      <ConfirmDialog
        subject={revoking}
        title={(grant) => `Revoke ${grant.role.name} ${where(grant)}?`}
        body={(grant) => <>{user.username} loses the permissions of {grant.role.name} {where(grant)} at once, unless another role grants them too.</>}
        confirmLabel="Revoke role"
        pendingLabel="Revoking…"
        onClose={() => setRevoking(null)}
        run={(grant) => revoke.mutateAsync({ user_id: user.id, grant_id: grant.id })}
        onDone={(grant) => {
          setRevoking(null);
          onNotice(`${grant.role.name} revoked from ${user.username} ${where(grant)}.`);
          void refresh();
        }}
      />
    </Section>
  );
}

function GrantRoleDialog({ user, open, onClose, onGranted }: { user: User; open: boolean; onClose: () => void; onGranted: (grant: Grant) => void }) {
  return (
    <Dialog open={open} onClose={onClose} title={`Grant a role to ${user.username}`}>
      <GrantRoleForm user={user} onCancel={onClose} onGranted={onGranted} />
    </Dialog>
  );
}

function GrantRoleForm({ user, onCancel, onGranted }: { user: User; onCancel: () => void; onGranted: (grant: Grant) => void }) {
  const trpc = useTRPC();
  const ids = { role: useId(), org: useId() };
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors({ role_id: "Role", org_id: "Organization" }, formRef);
  const [scope, setScope] = useState<"system" | "org">("org");
  const [roleId, setRoleId] = useState("");
  const [orgId, setOrgId] = useState("");
  const roles = useQuery(roleChoicesOptions(trpc, scope));
  const orgs = useQuery(userOrganizationsOptions(trpc, user.id));
  const grant = useMutation(trpc.roles.grant.mutationOptions({ onSuccess: onGranted, onError: form.fromServer }));
  const noOrganizations = scope === "org" && orgs.data?.data.length === 0;

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: { role_id?: string; org_id?: string } = {};
    if (!roleId) found.role_id = "Pick a role.";
    if (scope === "org" && !orgId) found.org_id = "Pick the organization the role applies in.";
    form.set(found);
    if (Object.keys(found).length > 0) return;
    grant.mutate({ user_id: user.id, role_id: roleId, org_id: scope === "org" ? orgId : null });
  }

  const select = (id: string, error: string | undefined) => ({
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy(error && `${id}-error`),
    className: `${inputClass} mt-1`,
  });

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <ChoiceGroup legend="Kind of role">
        <Choice type="radio" name="grant-scope" label="Organization role, in one organization" checked={scope === "org"} onChange={() => { setScope("org"); setRoleId(""); }} />
        <Choice type="radio" name="grant-scope" label="System role, globally" checked={scope === "system"} onChange={() => { setScope("system"); setRoleId(""); }} />
      </ChoiceGroup>
      <div>
        <label htmlFor={ids.role} className={labelClass}>
          Role
        </label>
        <select {...select(ids.role, form.errors.role_id)} value={roleId} onChange={(e) => setRoleId(e.target.value)}>
          <option value="">{roles.isPending ? "Loading roles…" : "Pick a role"}</option>
          {roles.data?.data.map((role) => (
            <option key={role.id} value={role.id}>
              {role.name}
              {role.description ? ` — ${role.description}` : ""}
            </option>
          ))}
        </select>
        <FieldError id={`${ids.role}-error`} message={form.errors.role_id} />
      </div>
      {scope === "org" && (
        <div>
          <label htmlFor={ids.org} className={labelClass}>
            Organization
          </label>
          <select {...select(ids.org, form.errors.org_id)} value={orgId} onChange={(e) => setOrgId(e.target.value)} disabled={noOrganizations}>
            <option value="">{orgs.isPending ? "Loading organizations…" : "Pick an organization"}</option>
            {orgs.data?.data.map((org) => (
              <option key={org.org_id} value={org.org_id}>
                {org.name}
              </option>
            ))}
          </select>
          <p className="mt-1 text-sm text-slate-500 dark:text-slate-400">
            {noOrganizations ? `${user.username} belongs to no organization yet: add them to one first.` : "Only organizations the user belongs to."}
          </p>
          <FieldError id={`${ids.org}-error`} message={form.errors.org_id} />
        </div>
      )}
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={grant.isPending} label="Grant role" pendingLabel="Granting…" />
    </form>
  );
}

// Effective permissions ------------------------------------------------------------------------

interface Held {
  permission: string;
  dangerous: boolean;
  sources: { role_id: string; role_name: string; org_id: string | null }[];
}

function HeldTable({ caption, held, orgNames }: { caption: string; held: Held[]; orgNames: ReadonlyMap<string, string> }) {
  if (held.length === 0) return <p className={`text-sm ${mutedText}`}>None.</p>;
  return (
    <DataTable caption={`${caption}`} columns={["Permission", "From"]}>
      {held.map((p) => (
        <tr key={p.permission}>
          <th scope="row" className={`${td} text-left font-normal`}>
            <code className="font-mono text-sm break-all">{p.permission}</code>
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
                    {s.role_name} {s.org_id === null ? "(globally)" : `(in ${orgNames.get(s.org_id) ?? "an organization"})`}
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
    if (effective.isError) return <ErrorState title="The effective permissions could not be loaded." error={effective.error} onRetry={() => effective.refetch()} />;
    const view = effective.data;
    const orgNames = new Map(view.organizations.map((o) => [o.id, o.name]));
    return (
      <div className="space-y-6">
        {view.is_sys_admin && (
          <p className="rounded-md border border-brand-100 bg-brand-50 px-4 py-3 text-sm dark:border-brand-900 dark:bg-brand-900/40">
            <strong className="font-semibold">{user.username} is a sys_admin</strong>: they hold every permission, everywhere.
          </p>
        )}
        <div>
          <h3 className="mb-2 text-sm font-semibold">Globally</h3>
          <HeldTable caption={`Permissions ${user.username} holds globally`} held={view.global} orgNames={orgNames} />
        </div>
        {view.organizations.map((org) => (
          <details key={org.id} className="group">
            <summary className="cursor-pointer text-sm font-semibold">
              In {org.name} <span className={`font-normal ${mutedText}`}>({org.permissions.length} {org.permissions.length === 1 ? "permission" : "permissions"})</span>
            </summary>
            <div className="mt-2">
              <HeldTable caption={`Permissions ${user.username} holds in ${org.name}`} held={org.permissions} orgNames={orgNames} />
            </div>
          </details>
        ))}
      </div>
    );
  }

  return (
    <Section
      id="effective-heading"
      title="Effective permissions"
      description="What the user may do now, globally and in each of their organizations, and the roles each permission comes from. Dangerous permissions never reach an API key."
    >
      {content()}
    </Section>
  );
}
