"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Member } from "@/lib/schemas/members";
import { organizationOptions } from "@/components/tenancy/queries";
import { useTRPC } from "@/trpc/react";
import { RemovalWarning, RoleBadges, UserLink } from "./parts";
import { memberListOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Dialog } from "@/components/ui/dialog";
import { FilterBar, useListFilters } from "@/components/ui/filter-bar";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's Members section (a page inside the organization's frame): who belongs to it
// and the org roles each holds there. Add a member, remove one (with their roles there), grant and
// revoke org roles in this organization. The forms (with their validation) load when first opened,
// not with the page.

const AddMemberForm = onDemand(() => import("./member-forms").then((m) => m.AddMemberForm), {
  loading: () => <FormLoading />,
});
const GrantOrgRoleForm = onDemand(() => import("./member-forms").then((m) => m.GrantOrgRoleForm), {
  loading: () => <FormLoading />,
});

interface RoleOfMember {
  member: Member;
  role: { id: string; name: string };
}

export function MembersScreen({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The organization page's frame reads the same query (deleted or not): the name is at hand.
  const org = useQuery(organizationOptions(trpc, orgId));
  const filters = useListFilters({ q: "" });
  const list = useInfiniteQuery({
    ...memberListOptions(trpc, orgId, filters.applied.q),
    placeholderData: keepPreviousData,
  });
  const notice = useNotice();
  const [granting, setGranting] = useState<Member | null>(null);
  const [revoking, setRevoking] = useState<RoleOfMember | null>(null);
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

  return (
    <ResourceSection<Member>
      title="Members"
      description="Org roles apply in this organization only, while the user is a member. Removing a member removes their roles here."
      notice={notice}
      before={<FilterBar noun="members" filters={filters} placeholder="Username, name or email" />}
      query={list}
      caption={`Members of ${orgName}`}
      noun="members"
      columns={["User", "Email", "Org roles", "Joined"]}
      rowKey={(member) => member.user_id}
      itemName={(member) => member.username}
      actions={(member, open) => [
        { label: "Grant role", ariaLabel: `Grant role to ${member.username}`, onClick: () => setGranting(member) },
        { label: "Remove", ariaLabel: `Remove ${member.username}`, onClick: open.remove, danger: true },
      ]}
      cells={(member) => (
        <>
          <th scope="row" className={`${td} text-left font-medium wrap-anywhere`}>
            <UserLink user={member} />
            {member.suspended && (
              <span className="ml-2 align-middle">
                <Badge tone="warn">suspended by the directory</Badge>
              </span>
            )}
          </th>
          <td className={`${td} wrap-anywhere`}>{member.email ?? <span className={mutedText}>—</span>}</td>
          <td className={td}>
            <RoleBadges
              roles={member.roles}
              action={(role) => (
                <button
                  type="button"
                  onClick={() => setRevoking({ member, role })}
                  className="rounded px-1 text-sm text-slate-500 hover:bg-red-50 hover:text-red-700 dark:hover:bg-red-950"
                  aria-label={`Revoke ${role.name} from ${member.username}`}
                  title={`Revoke ${role.name}`}
                >
                  ×
                </button>
              )}
            />
          </td>
          <WhenCell iso={member.created_at} />
        </>
      )}
      empty={{ title: `${orgName} has no members yet`, body: "Add the users who work in this organization." }}
      filters={filters}
      create={{ label: "Add member" }}
      editor={{
        createOnly: true,
        title: () => `Add a member to ${orgName}`,
        description: () =>
          "Within the organization tier's member quota. The member holds no role here until you grant one.",
        form: (_none, controls) => (
          <AddMemberForm
            orgId={orgId}
            onCancel={controls.cancel}
            onAdded={(member) => controls.done(`${member.username} added to ${orgName}.`)}
          />
        ),
      }}
      remove={{
        title: (member) => `Remove ${member.username} from ${orgName}?`,
        body: (member) => <RemovalWarning username={member.username} where="here" roles={member.roles} />,
        confirmLabel: "Remove member",
        pendingLabel: "Removing…",
        run: (member) => remove.mutateAsync({ org_id: orgId, user_id: member.user_id }),
        notice: (member) => `${member.username} removed from ${orgName}.`,
      }}
      refresh={refresh}
    >
      <Dialog
        open={granting !== null}
        onClose={() => setGranting(null)}
        title={granting ? `Grant an org role to ${granting.username}` : "Grant an org role"}
        description={`The role applies in ${orgName} only.`}
      >
        {granting && (
          <GrantOrgRoleForm
            orgId={orgId}
            member={granting}
            onCancel={() => setGranting(null)}
            onGranted={(roleName) => {
              notice.say(`${roleName} granted to ${granting.username} in ${orgName}.`);
              setGranting(null);
              void refresh();
            }}
          />
        )}
      </Dialog>
      <ConfirmDialog
        subject={revoking}
        title={({ member, role }) => `Revoke ${role.name} from ${member.username}?`}
        body={({ member, role }) => (
          <>
            {member.username} loses the permissions of {role.name} in {orgName} at once, unless another role grants them
            too.
          </>
        )}
        confirmLabel="Revoke role"
        pendingLabel="Revoking…"
        onClose={() => setRevoking(null)}
        run={({ member, role }) => revoke.mutateAsync({ org_id: orgId, user_id: member.user_id, role_id: role.id })}
        onDone={({ member, role }) => {
          setRevoking(null);
          notice.say(`${role.name} revoked from ${member.username}.`);
          void refresh();
        }}
      />
    </ResourceSection>
  );
}
