"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { IDENTITY_PROVIDERS, SSO_IDENTITY_PREFIX } from "@/lib/identities";
import type { Identity, User } from "@/lib/schemas/users";
import { useTRPC } from "@/trpc/react";
import { KeyTable } from "@/components/api-keys/key-table";
import { identitiesOptions } from "./queries";
import { ResourceSection } from "@/components/ui/resource-section";
import { HeadedSection } from "@/components/ui/page-header";
import { dangerButton, textLink } from "@/components/ui/styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";

// What else reaches a user: external accounts linked at sign-in (unlinkable here), and their API
// keys (read-only: only a key's owner creates or revokes it).

const PROVIDER_NAMES: Record<(typeof IDENTITY_PROVIDERS)[number], string> = {
  github: "GitHub",
  google: "Google",
  oauth2: "OpenID Connect",
};
const providerName = (identity: Identity) => {
  const known = IDENTITY_PROVIDERS.find((p) => p === identity.provider);
  if (known) return PROVIDER_NAMES[known];
  return identity.provider.startsWith(SSO_IDENTITY_PREFIX) ? "Organization single sign-on" : identity.provider;
};

/**
 * A user's linked accounts. `unlinked`: what follows an unlink instead of reloading the list (one's
 * own unlink ends one's own sessions too).
 */
export function IdentitiesSection({
  user,
  onNotice,
  unlinked,
}: {
  user: User;
  onNotice: (text: string) => void;
  unlinked?: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const identities = useQuery(identitiesOptions(trpc, user.id));
  const unlink = useMutation(trpc.users.unlinkIdentity.mutationOptions());
  return (
    <ResourceSection<Identity>
      title="Linked identities"
      description="External accounts that sign in as this user."
      className="mt-10"
      notice={onNotice}
      query={identities}
      caption={`Linked identities of ${user.username}`}
      columns={["Provider", "Account id at the provider", "Linked"]}
      itemName={(identity) => `${providerName(identity)} ${identity.provider_user_id}`}
      removeLabel="Unlink"
      cells={(identity) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            {providerName(identity)}
          </th>
          <td className={`${td} font-mono wrap-anywhere`}>{identity.provider_user_id}</td>
          <WhenCell iso={identity.created_at} />
        </>
      )}
      empty={{
        title: "No linked identity.",
        body: "The user links an external account from their own profile; one without a system role or org_admin also at a first sign-in with a verified email they have.",
      }}
      remove={{
        title: (identity) => `Unlink this ${providerName(identity)} account?`,
        body: (identity) => (
          <>
            Signing in with the account <code className="font-mono">{identity.provider_user_id}</code> no longer reaches{" "}
            {user.username}, and every console session of {user.username} ends now.
          </>
        ),
        confirmLabel: "Unlink",
        pendingLabel: "Unlinking…",
        run: (identity) => unlink.mutateAsync({ user_id: user.id, identity_id: identity.id }),
        notice: (identity) => `${providerName(identity)} account ${identity.provider_user_id} unlinked.`,
      }}
      refresh={() => (unlinked ? unlinked() : queryClient.invalidateQueries(trpc.users.identities.pathFilter()))}
    />
  );
}

export function ApiKeysSection({ user, onNotice }: { user: User; onNotice: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [revokingAll, setRevokingAll] = useState<User | null>(null);
  const revokeAll = useMutation(trpc.apiKeys.revokeAll.mutationOptions());
  return (
    <HeadedSection
      title="API keys"
      level={2}
      className="mt-10"
      actions={
        <button type="button" onClick={() => setRevokingAll(user)} className={dangerButton}>
          Revoke all keys
        </button>
      }
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
      <div className="mt-4">
        <KeyTable
          ownerId={user.id}
          caption={`API keys of ${user.username}`}
          empty={{ title: `${user.username} has no API keys.` }}
        />
      </div>
      <ConfirmDialog
        subject={revokingAll}
        title={(target) => `Revoke every key of ${target.username}?`}
        body={(target) => (
          <>
            Every active API key of {target.username} stops working at once, in every process. Revoked keys cannot be
            used again.
          </>
        )}
        confirmLabel="Revoke all keys"
        pendingLabel="Revoking…"
        onClose={() => setRevokingAll(null)}
        run={async (target) => {
          const { revoked } = await revokeAll.mutateAsync({ user_id: target.id });
          onNotice(`${revoked} ${revoked === 1 ? "key" : "keys"} of ${target.username} revoked.`);
        }}
        onDone={() => {
          setRevokingAll(null);
          void queryClient.invalidateQueries(trpc.apiKeys.list.pathFilter());
        }}
      />
    </HeadedSection>
  );
}
