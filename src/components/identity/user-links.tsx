"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { Identity, User } from "@/lib/schemas/users";
import { useTRPC } from "@/trpc/react";
import { identitiesOptions, userKeysOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Section } from "@/components/ui/section";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { textLink } from "@/components/ui/styles";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { Code, When } from "@/components/ui/values";

// What else reaches a user: external accounts linked at sign-in (unlinkable here), and their API
// keys (read-only: only a key's owner creates or revokes it).

const PROVIDER_NAMES: Record<string, string> = { github: "GitHub", google: "Google", oauth2: "OpenID Connect" };

export function IdentitiesSection({ user, onNotice }: { user: User; onNotice: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const identities = useQuery(identitiesOptions(trpc, user.id));
  const unlink = useMutation(trpc.users.unlinkIdentity.mutationOptions());
  const [unlinking, setUnlinking] = useState<Identity | null>(null);
  const providerName = (identity: Identity) => PROVIDER_NAMES[identity.provider] ?? identity.provider;

  function content() {
    if (identities.isPending) return <LoadingState label="Loading linked identities…" />;
    if (identities.isError) return <ErrorState title="The linked identities could not be loaded." error={identities.error} onRetry={() => identities.refetch()} />;
    if (identities.data.data.length === 0) {
      return <EmptyState title="No linked identity." body="An external account is linked when it first signs in with a verified email this user has." />;
    }
    return (
      <DataTable caption={`Linked identities of ${user.username}`} columns={["Provider", "Account id at the provider", "Linked", { label: "Actions", hidden: true }]}>
        {identities.data.data.map((identity) => (
          <tr key={identity.id}>
            <th scope="row" className={`${td} text-left font-medium`}>
              {providerName(identity)}
            </th>
            <td className={`${td} font-mono break-all`}>{identity.provider_user_id}</td>
            <td className={td}>
              <When iso={identity.created_at} />
            </td>
            <RowActions actions={[{ label: "Unlink", ariaLabel: `Unlink ${providerName(identity)} ${identity.provider_user_id}`, onClick: () => setUnlinking(identity), danger: true }]} />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <Section id="identities-heading" title="Linked identities" description="External accounts that sign in as this user.">
      {content()}
      <ConfirmDialog
        subject={unlinking}
        title={(identity) => `Unlink this ${providerName(identity)} account?`}
        body={(identity) => (
          <>
            Signing in with the account <code className="font-mono">{identity.provider_user_id}</code> no longer reaches {user.username}. If the
            provider still vouches for an email the user has, the next sign-in links it again.
          </>
        )}
        confirmLabel="Unlink"
        pendingLabel="Unlinking…"
        onClose={() => setUnlinking(null)}
        run={(identity) => unlink.mutateAsync({ user_id: user.id, identity_id: identity.id })}
        onDone={(identity) => {
          setUnlinking(null);
          onNotice(`${providerName(identity)} account ${identity.provider_user_id} unlinked.`);
          void queryClient.invalidateQueries(trpc.users.identities.pathFilter());
        }}
      />
    </Section>
  );
}

export function ApiKeysSection({ user }: { user: User }) {
  const trpc = useTRPC();
  const keys = useQuery(userKeysOptions(trpc, user.id));
  const [now] = useState(() => Date.now());

  function content() {
    if (keys.isPending) return <LoadingState label="Loading API keys…" />;
    if (keys.isError) return <ErrorState title="The API keys could not be loaded." error={keys.error} onRetry={() => keys.refetch()} />;
    if (keys.data.data.length === 0) return <EmptyState title={`${user.username} has no API keys.`} />;
    return (
      <DataTable caption={`API keys of ${user.username}`} columns={["Name", "Prefix", "Scopes", "Expires", "Last used", "Status"]}>
        {keys.data.data.map((key) => {
          const expired = key.expires_at !== null && Date.parse(key.expires_at) <= now;
          return (
            <tr key={key.id}>
              <th scope="row" className={`${td} text-left font-medium break-words`}>
                {key.name}
              </th>
              <td className={`${td} font-mono whitespace-nowrap`}>{key.key_prefix}…</td>
              <td className={td}>
                <ul className="flex flex-wrap gap-1">
                  {key.scopes.map((scope) => (
                    <li key={scope}>
                      <Code>{scope}</Code>
                    </li>
                  ))}
                </ul>
              </td>
              <td className={td}>
                <When iso={key.expires_at} />
              </td>
              <td className={td}>
                <When iso={key.last_used_at} />
              </td>
              <td className={td}>
                {!key.is_active ? <Badge>Revoked</Badge> : expired ? <Badge tone="warn">Expired</Badge> : <Badge tone="good">Active</Badge>}
              </td>
            </tr>
          );
        })}
      </DataTable>
    );
  }

  return (
    <Section
      id="keys-heading"
      title="API keys"
      description={
        <>
          Read-only: only a key&apos;s owner creates or revokes it. The{" "}
          <Link href="/console/api-keys" className={textLink}>
            API keys screen
          </Link>{" "}
          shows them too: find the user there.
        </>
      }
    >
      {content()}
    </Section>
  );
}
