"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import type { OAuthClient, OAuthClientWithSecret } from "@/lib/schemas/oauth-clients";
import { messageOf, useTRPC } from "@/trpc/react";
import { ClientSecretDialog, OAuthClientDialog } from "./oauth-client-dialogs";
import { clientListOptions, type ClientFilters, type ClientStatus } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { mutedText, primaryButton } from "@/components/ui/styles";
import { dangerRowAction, DataTable, rowAction, td } from "@/components/ui/table";
import { Code, When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// OAuth 2.0 clients: register one (a confidential client's secret is shown once), edit it, rotate
// its secret (the old one stops working), deactivate or reactivate it, delete it (softly).

const STATUSES: { value: ClientStatus; label: string }[] = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "inactive", label: "Inactive" },
];

function List({ items, empty }: { items: string[]; empty: string }) {
  if (items.length === 0) return <span className={mutedText}>{empty}</span>;
  return (
    <ul className="flex flex-col gap-1">
      {items.map((item) => (
        <li key={item}>
          <Code>{item}</Code>
        </li>
      ))}
    </ul>
  );
}

function statusOf(client: OAuthClient): ReactNode {
  if (client.is_deleted) return <Badge tone="bad">Deleted</Badge>;
  return client.is_active ? <Badge tone="good">Active</Badge> : <Badge>Inactive</Badge>;
}

export function OAuthClientsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<ClientFilters>({ status: "all", include_deleted: false });
  const list = useInfiniteQuery({ ...clientListOptions(trpc, filters), placeholderData: keepPreviousData });
  const clients = list.data?.pages.flatMap((page) => page.data) ?? [];
  const [notice, setNotice] = useState("");
  const [editing, setEditing] = useState<"register" | OAuthClient | null>(null);
  const [secret, setSecret] = useState<OAuthClientWithSecret | null>(null);
  const [rotating, setRotating] = useState<OAuthClient | null>(null);
  const [deleting, setDeleting] = useState<OAuthClient | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.oauthClients.pathFilter());
  const rotate = useMutation(trpc.oauthClients.rotateSecret.mutationOptions());
  const remove = useMutation(trpc.oauthClients.delete.mutationOptions());
  const toggle = useMutation(
    trpc.oauthClients.update.mutationOptions({
      onSuccess: (client) => {
        setNotice(`${client.name} ${client.is_active ? "activated" : "deactivated"}.`);
        void refresh();
      },
    }),
  );

  const registerButton = (
    <button type="button" onClick={() => setEditing("register")} className={primaryButton}>
      Register client
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading OAuth clients…" />;
    if (list.isError && clients.length === 0) return <ErrorState title="The OAuth clients could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (clients.length === 0) {
      return filters.status === "all" ? (
        <EmptyState title="No OAuth clients yet." body="Register the apps that sign users in through the platform." action={registerButton} />
      ) : (
        <EmptyState title={`No ${filters.status} OAuth clients.`} />
      );
    }
    return (
      <DataTable caption="OAuth clients" columns={["Name", "Client ID", "Type", "Grant types", "Redirect URIs", "Scopes", "Status", "Created", { label: "Actions", hidden: true }]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more clients" }}>
        {clients.map((client) => (
          <tr key={client.id}>
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
              <List items={client.allowed_grant_types} empty="None" />
            </td>
            <td className={td}>
              <List items={client.redirect_uris} empty="None" />
            </td>
            <td className={`${td} whitespace-nowrap`}>
              {client.allowed_scopes.length === 0 ? (
                <span className={mutedText}>None</span>
              ) : (
                <details>
                  <summary className="cursor-pointer">{client.allowed_scopes.length === 1 ? "1 scope" : `${client.allowed_scopes.length} scopes`}</summary>
                  <List items={client.allowed_scopes} empty="None" />
                </details>
              )}
            </td>
            <td className={td}>{statusOf(client)}</td>
            <td className={td}>
              <When iso={client.created_at} />
            </td>
            <td className={`${td} text-right`}>
              {!client.is_deleted && (
                <div className="flex flex-col items-end gap-1">
                  <button type="button" onClick={() => setEditing(client)} className={rowAction} aria-label={`Edit ${client.name}`}>
                    Edit
                  </button>
                  {client.client_type === "confidential" && (
                    <button type="button" onClick={() => setRotating(client)} className={rowAction} aria-label={`Rotate the secret of ${client.name}`}>
                      Rotate secret
                    </button>
                  )}
                  <button
                    type="button"
                    onClick={() => toggle.mutate({ client_id: client.client_id, is_active: !client.is_active })}
                    disabled={toggle.isPending}
                    className={rowAction}
                    aria-label={`${client.is_active ? "Deactivate" : "Activate"} ${client.name}`}
                  >
                    {client.is_active ? "Deactivate" : "Activate"}
                  </button>
                  <button type="button" onClick={() => setDeleting(client)} className={dangerRowAction} aria-label={`Delete ${client.name}`}>
                    Delete
                  </button>
                </div>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="oauth-clients-heading">
      <PageHeader id="oauth-clients-heading" title="OAuth clients" actions={registerButton}>
        Apps registered to use the platform as an OAuth 2.0 authorization server. A confidential client authenticates with a secret,
        which is shown once and stored only as a hash.
      </PageHeader>

      <div className="mt-4">
        <Notice text={notice} />
        <FormAlert message={toggle.error ? messageOf(toggle.error) : undefined} />
      </div>

      <div className="mt-2 flex flex-wrap items-end gap-6">
        <fieldset>
          <legend className="text-sm font-medium">Status</legend>
          <div className="mt-1 inline-flex rounded-md border border-slate-300 bg-white p-0.5 dark:border-slate-700 dark:bg-slate-900">
            {STATUSES.map((status) => (
              <label
                key={status.value}
                className="cursor-pointer rounded px-3 py-1.5 text-sm has-checked:bg-brand-600 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-brand-500"
              >
                <input
                  type="radio"
                  name="client-status"
                  checked={filters.status === status.value}
                  onChange={() => setFilters((f) => ({ ...f, status: status.value }))}
                  className="sr-only"
                />
                {status.label}
              </label>
            ))}
          </div>
        </fieldset>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={filters.include_deleted}
            onChange={(e) => setFilters((f) => ({ ...f, include_deleted: e.target.checked }))}
            className="size-4 accent-brand-600"
          />
          Show deleted clients
        </label>
      </div>

      <div className="mt-6">{content()}</div>

      <OAuthClientDialog
        subject={editing}
        onClose={() => setEditing(null)}
        onRegistered={(client) => {
          setEditing(null);
          setNotice(`${client.name} registered.`);
          if (client.client_secret) setSecret(client);
          void refresh();
        }}
        onSaved={(client) => {
          setEditing(null);
          setNotice(`${client.name} saved.`);
          void refresh();
        }}
      />
      <ClientSecretDialog client={secret} onClose={() => setSecret(null)} />
      <ConfirmDialog
        subject={rotating}
        title={(client) => `Issue a new secret for ${client.name}?`}
        body={() => <>The current secret stops working at once: the app needs the new one before it can authenticate again.</>}
        confirmLabel="Rotate secret"
        pendingLabel="Rotating…"
        onClose={() => setRotating(null)}
        run={async (client) => setSecret(await rotate.mutateAsync({ client_id: client.client_id }))}
        onDone={(client) => {
          setRotating(null);
          setNotice(`A new secret was issued for ${client.name}.`);
          void refresh();
        }}
      />
      <ConfirmDialog
        subject={deleting}
        title={(client) => `Delete ${client.name}?`}
        body={() => <>The client is deactivated and disappears from the list: it can no longer be used. A sys_admin still sees it among deleted clients.</>}
        confirmLabel="Delete client"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(client) => remove.mutateAsync({ client_id: client.client_id })}
        onDone={(client) => {
          setDeleting(null);
          setNotice(`${client.name} deleted.`);
          void refresh();
        }}
      />
    </section>
  );
}
