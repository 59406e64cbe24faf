"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useRef, useState, type FormEvent } from "react";
import type { Member } from "@/lib/schemas/members";
import { Dialog } from "@/components/ui/dialog";
import { useTRPC } from "@/trpc/react";
import { UserPicker, type Picked } from "./pickers";
import { memberListOptions, roleChoicesOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { DialogButtons, useFormErrors } from "@/components/ui/form";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { inputClass, labelClass, mutedText, primaryButton, secondaryButton, textLink } from "@/components/ui/styles";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// An organization's Members section (a page inside the organization's frame): who belongs to it and the org roles each holds there. Add a member,
// remove one (with their roles there), grant and revoke org roles in this organization.

interface RoleOfMember {
  member: Member;
  role: { id: string; name: string };
}

export function MembersScreen({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const searchId = useId();
  // The organization page's frame reads the same query (deleted or not): the name is at hand.
  const org = useQuery(trpc.organizations.get.queryOptions({ org_id: orgId, include_deleted: "true" }));
  const [text, setText] = useState("");
  const [q, setQ] = useState<string | undefined>(undefined);
  const list = useInfiniteQuery({ ...memberListOptions(trpc, orgId, q), placeholderData: keepPreviousData });
  const members = list.data?.pages.flatMap((page) => page.data) ?? [];
  const [notice, setNotice] = useState("");
  const [adding, setAdding] = useState(false);
  const [granting, setGranting] = useState<Member | null>(null);
  const [revoking, setRevoking] = useState<RoleOfMember | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const revoke = useMutation(trpc.members.revokeRole.mutationOptions());
  const remove = useMutation(trpc.members.remove.mutationOptions());
  const orgName = org.data?.name ?? "this organization";

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.members.pathFilter()),
      queryClient.invalidateQueries(trpc.users.organizations.pathFilter()),
      queryClient.invalidateQueries(trpc.roles.grants.pathFilter()),
      queryClient.invalidateQueries(trpc.roles.effective.pathFilter()),
    ]);

  function search(event: FormEvent) {
    event.preventDefault();
    setQ(text.trim() || undefined);
  }

  function content() {
    if (list.isPending) return <LoadingState label="Loading members…" />;
    if (list.isError && members.length === 0) return <ErrorState title="The members could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (members.length === 0) return q ? <EmptyState title={`No member matches “${q}”.`} /> : <EmptyState title={`${orgName} has no members yet.`} />;
    return (
      <DataTable caption={`Members of ${orgName}`} columns={["User", "Email", "Org roles", "Joined", { label: "Actions", hidden: true }]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more members" }}>
        {members.map((member) => (
          <tr key={member.user_id}>
            <th scope="row" className={`${td} text-left font-medium break-all`}>
              <Link href={`/console/users/${member.user_id}`} className={textLink}>
                {member.username}
              </Link>
              {member.display_name && member.display_name !== member.username && <span className={`block text-xs font-normal ${mutedText}`}>{member.display_name}</span>}
            </th>
            <td className={`${td} break-all`}>{member.email ?? <span className={mutedText}>—</span>}</td>
            <td className={td}>
              {member.roles.length === 0 ? (
                <span className={mutedText}>None</span>
              ) : (
                <ul className="flex flex-wrap gap-1">
                  {member.roles.map((role) => (
                    <li key={role.id} className="inline-flex items-center gap-0.5">
                      <Badge tone="brand">{role.name}</Badge>
                      <button
                        type="button"
                        onClick={() => setRevoking({ member, role })}
                        className="rounded px-1 text-sm text-slate-500 hover:bg-red-50 hover:text-red-700 dark:hover:bg-red-950"
                        aria-label={`Revoke ${role.name} from ${member.username}`}
                        title={`Revoke ${role.name}`}
                      >
                        ×
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td className={td}>
              <When iso={member.created_at} />
            </td>
            <RowActions
              actions={[
                { label: "Grant role", ariaLabel: `Grant a role to ${member.username}`, onClick: () => setGranting(member) },
                { label: "Remove", ariaLabel: `Remove ${member.username}`, onClick: () => setRemoving(member), danger: true },
              ]}
            />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="members-heading">
      <PageHeader
        id="members-heading"
        title="Members"
        level={2}
        actions={
          <button type="button" onClick={() => setAdding(true)} className={primaryButton}>
            Add member
          </button>
        }
      >
        Org roles apply in this organization only, while the user is a member. Removing a member removes their roles here.
      </PageHeader>

      <div className="mt-4">
        <Notice text={notice} />
      </div>

      <form role="search" aria-label="Members" onSubmit={search} className="mt-2 flex w-full max-w-md items-end gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor={searchId} className={labelClass}>
            Search
          </label>
          <input id={searchId} type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Username, name or email" className={`${inputClass} mt-1`} />
        </div>
        <button type="submit" className={secondaryButton}>
          Search
        </button>
      </form>

      <div className="mt-6">{content()}</div>

      <Dialog open={adding} onClose={() => setAdding(false)} title={`Add a member to ${orgName}`} description="Within the organization tier's member quota. The member holds no role here until you grant one.">
        <AddMemberForm
          orgId={orgId}
          onCancel={() => setAdding(false)}
          onAdded={(member) => {
            setAdding(false);
            setNotice(`${member.username} added to ${orgName}.`);
            void refresh();
          }}
        />
      </Dialog>
      <Dialog open={granting !== null} onClose={() => setGranting(null)} title={granting ? `Grant an org role to ${granting.username}` : "Grant an org role"} description={`The role applies in ${orgName} only.`}>
        {granting && (
          <GrantOrgRoleForm
            orgId={orgId}
            member={granting}
            onCancel={() => setGranting(null)}
            onGranted={(roleName) => {
              setNotice(`${roleName} granted to ${granting.username} in ${orgName}.`);
              setGranting(null);
              void refresh();
            }}
          />
        )}
      </Dialog>
      <ConfirmDialog
        subject={revoking}
        title={({ member, role }) => `Revoke ${role.name} from ${member.username}?`}
        body={({ member, role }) => <>{member.username} loses the permissions of {role.name} in {orgName} at once, unless another role grants them too.</>}
        confirmLabel="Revoke role"
        pendingLabel="Revoking…"
        onClose={() => setRevoking(null)}
        run={({ member, role }) => revoke.mutateAsync({ org_id: orgId, user_id: member.user_id, role_id: role.id })}
        onDone={({ member, role }) => {
          setRevoking(null);
          setNotice(`${role.name} revoked from ${member.username}.`);
          void refresh();
        }}
      />
      <ConfirmDialog
        subject={removing}
        title={(member) => `Remove ${member.username} from ${orgName}?`}
        body={(member) => (
          <>
            {member.username} loses every org role here{member.roles.length > 0 && <> ({member.roles.map((r) => r.name).join(", ")})</>}, at once —
            their API keys included. Adding them back starts from no roles.
          </>
        )}
        confirmLabel="Remove member"
        pendingLabel="Removing…"
        onClose={() => setRemoving(null)}
        run={(member) => remove.mutateAsync({ org_id: orgId, user_id: member.user_id })}
        onDone={(member) => {
          setRemoving(null);
          setNotice(`${member.username} removed from ${orgName}.`);
          void refresh();
        }}
      />
    </section>
  );
}

function AddMemberForm({ orgId, onCancel, onAdded }: { orgId: string; onCancel: () => void; onAdded: (member: Member) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors({ user_id: "User" }, formRef);
  const [user, setUser] = useState<Picked | null>(null);
  const add = useMutation(trpc.members.add.mutationOptions({ onSuccess: onAdded, onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!user) return form.set({ user_id: "Pick a user." });
    form.set({});
    add.mutate({ org_id: orgId, user_id: user.id });
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <UserPicker picked={user} onPick={setUser} error={form.errors.user_id} />
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={add.isPending} label="Add member" pendingLabel="Adding…" />
    </form>
  );
}

function GrantOrgRoleForm({ orgId, member, onCancel, onGranted }: { orgId: string; member: Member; onCancel: () => void; onGranted: (roleName: string) => void }) {
  const trpc = useTRPC();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors({ role_id: "Role" }, formRef);
  const [roleId, setRoleId] = useState("");
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const held = new Set(member.roles.map((r) => r.id));
  const grant = useMutation(trpc.members.grantRole.mutationOptions({ onSuccess: (g) => onGranted(g.role.name), onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!roleId) return form.set({ role_id: "Pick a role." });
    form.set({});
    grant.mutate({ org_id: orgId, user_id: member.user_id, role_id: roleId });
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <div>
        <label htmlFor={id} className={labelClass}>
          Org role
        </label>
        <select
          id={id}
          value={roleId}
          onChange={(e) => setRoleId(e.target.value)}
          aria-invalid={form.errors.role_id ? true : undefined}
          aria-describedby={describedBy(form.errors.role_id && `${id}-error`)}
          className={`${inputClass} mt-1`}
        >
          <option value="">{roles.isPending ? "Loading roles…" : "Pick a role"}</option>
          {roles.data?.data
            .filter((role) => !held.has(role.id))
            .map((role) => (
              <option key={role.id} value={role.id}>
                {role.name}
                {role.description ? ` — ${role.description}` : ""}
              </option>
            ))}
        </select>
        <FieldError id={`${id}-error`} message={form.errors.role_id} />
      </div>
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={grant.isPending} label="Grant role" pendingLabel="Granting…" />
    </form>
  );
}
