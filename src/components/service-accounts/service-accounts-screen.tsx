"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ServiceAccount } from "@/lib/schemas/service-accounts";
import { RoleBadges } from "@/components/identity/parts";
import { organizationOptions } from "@/components/tenancy/queries";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { useTRPC } from "@/trpc/react";
import { serviceAccountListOptions } from "./queries";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's Service accounts section: machine users of this organization only, each with
// org roles here and API keys that outlive the people who made them. Create one with a role, open
// its keys (created, rolled and revoked with the personal keys' dialogs), delete it (its keys end).
// The create form and an account's keys (with their dialogs) load when first opened, not with the page.

const CreateServiceAccountForm = onDemand(
  () => import("./create-service-account-form").then((m) => m.CreateServiceAccountForm),
  { loading: () => <FormLoading /> },
);
const ServiceAccountKeys = onDemand(() => import("./service-account-keys").then((m) => m.ServiceAccountKeys), {
  loading: () => null,
});

export function ServiceAccountsScreen({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useQuery(organizationOptions(trpc, orgId));
  const list = useInfiniteQuery({ ...serviceAccountListOptions(trpc, orgId), placeholderData: keepPreviousData });
  const notice = useNotice();
  const [open, setOpen] = useState<ServiceAccount | null>(null);
  const remove = useMutation(trpc.serviceAccounts.delete.mutationOptions());
  const orgName = org.data?.name ?? "this organization";
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.serviceAccounts.pathFilter()),
      queryClient.invalidateQueries(trpc.members.pathFilter()),
      queryClient.invalidateQueries(trpc.apiKeys.list.pathFilter()),
    ]);

  return (
    <ResourceSection<ServiceAccount>
      title="Service accounts"
      description="Machine users of this organization only: no password, no console sign-in, only the org roles granted here. Their API keys keep working when the people who made them leave; deleting an account revokes its keys."
      notice={notice}
      query={list}
      caption={`Service accounts of ${orgName}`}
      columns={["Account", "Org roles", "Created"]}
      rowKey={(account) => account.id}
      itemName={(account) => account.username}
      actions={(account, controls) => [
        { label: "Keys", ariaLabel: `Keys of ${account.username}`, onClick: () => setOpen(account) },
        { label: "Delete", ariaLabel: `Delete ${account.username}`, onClick: controls.remove, danger: true },
      ]}
      cells={(account) => (
        <>
          <th scope="row" className={`${td} text-left font-medium break-all`}>
            {account.username}
            {account.display_name && (
              <span className="block text-sm font-normal text-slate-600 dark:text-slate-300">
                {account.display_name}
              </span>
            )}
          </th>
          <td className={td}>
            <RoleBadges roles={account.roles} />
          </td>
          <WhenCell iso={account.created_at} />
        </>
      )}
      empty={{ title: `${orgName} has no service accounts yet.` }}
      create={{ label: "Create service account" }}
      editor={{
        createOnly: true,
        title: () => `Create a service account in ${orgName}`,
        description: () => "It holds the org role you pick here, and nothing elsewhere. Give it keys once it exists.",
        form: (_none, controls) => (
          <CreateServiceAccountForm
            orgId={orgId}
            onCancel={controls.cancel}
            onCreated={(account) => {
              controls.done(`Service account ${account.username} created.`);
              setOpen(account);
            }}
          />
        ),
      }}
      remove={{
        title: (account) => `Delete ${account.username}?`,
        body: (account) => (
          <>Every API key of {account.username} stops working at once, and its roles here are gone with it.</>
        ),
        confirmLabel: "Delete service account",
        pendingLabel: "Deleting…",
        run: (account) => remove.mutateAsync({ org_id: orgId, user_id: account.id }),
        notice: (account) => `Service account ${account.username} deleted; its keys are revoked.`,
      }}
      refresh={() => {
        setOpen(null);
        return refresh();
      }}
    >
      {open && <ServiceAccountKeys orgId={orgId} account={open} onNotice={notice.say} />}
    </ResourceSection>
  );
}
