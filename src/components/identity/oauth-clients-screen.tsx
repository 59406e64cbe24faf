"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { OAuthClient, OAuthClientWithSecret } from "@/lib/schemas/oauth-clients";
import { messageOf, useTRPC } from "@/trpc/react";
import { clientListOptions, type ClientStatus } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useOpenedOnce } from "@/components/ui/dialog";
import { ShowDeletedField } from "@/components/ui/fields";
import { FilterBar, useListFilters } from "@/components/ui/filter-bar";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { Segmented } from "@/components/ui/segmented";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { Code, CodeList, WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// OAuth 2.0 clients: register one (a confidential client's secret is shown once), edit it, rotate
// its secret (the old one stops working), deactivate or reactivate it, delete it (softly). The form
// (with its validation) and the secret's dialog load when first opened, not with the page.

const ClientForm = onDemand(() => import("./oauth-client-dialogs").then((m) => m.ClientForm), {
  loading: () => <FormLoading />,
});
const ClientSecretDialog = onDemand(() => import("./oauth-client-dialogs").then((m) => m.ClientSecretDialog), {
  loading: () => null,
});

const STATUSES: { value: ClientStatus; label: string }[] = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "inactive", label: "Inactive" },
];

function Status({ client }: { client: OAuthClient }) {
  if (client.is_deleted) return <Badge tone="bad">Deleted</Badge>;
  return client.is_active ? <Badge tone="good">Active</Badge> : <Badge>Inactive</Badge>;
}

export function OAuthClientsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const filters = useListFilters({ q: "", status: "all" as ClientStatus, include_deleted: false });
  const list = useInfiniteQuery({ ...clientListOptions(trpc, filters.applied), placeholderData: keepPreviousData });
  const notice = useNotice();
  const [secret, setSecret] = useState<OAuthClientWithSecret | null>(null);
  const secretOpened = useOpenedOnce(secret !== null);
  const [rotating, setRotating] = useState<OAuthClient | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.oauthClients.pathFilter());
  const rotate = useMutation(trpc.oauthClients.rotateSecret.mutationOptions());
  const remove = useMutation(trpc.oauthClients.delete.mutationOptions());
  const toggle = useMutation(
    trpc.oauthClients.update.mutationOptions({
      onSuccess: (client) => {
        notice.say(`${client.name} ${client.is_active ? "activated" : "deactivated"}.`);
        void refresh();
      },
      onError: (error) => notice.fail(messageOf(error)),
    }),
  );

  return (
    <ResourceSection<OAuthClient>
      level={1}
      title="OAuth clients"
      description="Apps registered to use the platform as an OAuth 2.0 authorization server. A confidential client authenticates with a secret, which is shown once and stored only as a hash."
      notice={notice}
      before={
        <FilterBar noun="OAuth clients" filters={filters} placeholder="Name or client ID">
          <Segmented legend="Status" name="client-status" options={STATUSES} {...filters.choice("status")} />
          <ShowDeletedField noun="clients" filters={filters} />
        </FilterBar>
      }
      moreLabel="Show more clients"
      query={list}
      columns={["Name", "Client ID", "Type", "Grant types", "Redirect URIs", "Scopes", "Status", "Created"]}
      itemName={(client) => client.name}
      actions={(client, open) =>
        client.is_deleted
          ? []
          : [
              { label: "Edit", ariaLabel: `Edit ${client.name}`, onClick: open.edit },
              ...(client.client_type === "confidential"
                ? [
                    {
                      label: "Rotate secret",
                      ariaLabel: `Rotate the secret of ${client.name}`,
                      onClick: () => setRotating(client),
                    },
                  ]
                : []),
              {
                label: client.is_active ? "Deactivate" : "Activate",
                ariaLabel: `${client.is_active ? "Deactivate" : "Activate"} ${client.name}`,
                onClick: () => toggle.mutate({ client_id: client.client_id, is_active: !client.is_active }),
              },
              { label: "Delete", ariaLabel: `Delete ${client.name}`, onClick: open.remove, danger: true },
            ]
      }
      cells={(client) => (
        <>
          <th scope="row" className={`${td} min-w-36 text-left font-medium break-words`}>
            {client.name}
            {client.is_first_party && (
              <span className="mt-1 block">
                <Badge tone="brand">First party</Badge>
              </span>
            )}
          </th>
          <td className={td}>
            <Code>{client.client_id}</Code>
          </td>
          <td className={td}>{client.client_type}</td>
          <td className={td}>
            <CodeList items={client.allowed_grant_types} />
          </td>
          <td className={td}>
            <CodeList items={client.redirect_uris} />
          </td>
          <td className={`${td} whitespace-nowrap`}>
            {client.allowed_scopes.length === 0 ? (
              <span className={mutedText}>None</span>
            ) : (
              <details>
                <summary className="cursor-pointer">
                  {client.allowed_scopes.length === 1 ? "1 scope" : `${client.allowed_scopes.length} scopes`}
                </summary>
                <CodeList items={client.allowed_scopes} />
              </details>
            )}
          </td>
          <td className={td}>
            <Status client={client} />
          </td>
          <WhenCell iso={client.created_at} />
        </>
      )}
      empty={{ title: "No OAuth clients yet", body: "Register the apps that sign users in through the platform." }}
      filters={filters}
      create={{ label: "Register client" }}
      editor={{
        title: (client) => (client ? `Edit ${client.name}` : "Register OAuth client"),
        description: (client) => (client ? undefined : "A confidential client gets a secret, shown once."),
        form: (client, controls) => (
          <ClientForm
            client={client}
            onCancel={controls.cancel}
            onRegistered={(registered) => {
              controls.done(`${registered.name} registered.`);
              if (registered.client_secret) setSecret(registered);
            }}
            onSaved={(saved) => controls.done(`${saved.name} saved.`)}
          />
        ),
      }}
      remove={{
        title: (client) => `Delete ${client.name}?`,
        body: () => (
          <>
            The client is deactivated and disappears from the list: it can no longer be used. A sys_admin still sees it
            among deleted clients.
          </>
        ),
        confirmLabel: "Delete client",
        run: (client) => remove.mutateAsync({ client_id: client.client_id }),
        notice: (client) => `${client.name} deleted.`,
      }}
      refresh={refresh}
    >
      {secretOpened && <ClientSecretDialog client={secret} onClose={() => setSecret(null)} />}
      <ConfirmDialog
        subject={rotating}
        title={(client) => `Issue a new secret for ${client.name}?`}
        body={() => (
          <>The current secret stops working at once: the app needs the new one before it can authenticate again.</>
        )}
        confirmLabel="Rotate secret"
        pendingLabel="Rotating…"
        onClose={() => setRotating(null)}
        run={async (client) => setSecret(await rotate.mutateAsync({ client_id: client.client_id }))}
        onDone={(client) => {
          setRotating(null);
          notice.say(`A new secret was issued for ${client.name}.`);
          void refresh();
        }}
      />
    </ResourceSection>
  );
}
