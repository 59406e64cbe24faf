"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ServiceAccount } from "@/lib/schemas/service-accounts";
import { CreateKeyDialog } from "@/components/api-keys/create-key-dialog";
import { useKeyActions } from "@/components/api-keys/key-actions";
import { KeyTable } from "@/components/api-keys/key-table";
import { HeadedSection } from "@/components/ui/page-header";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";

// One service account's keys, with the personal keys' table and dialogs (../api-keys/key-actions.tsx):
// create (shown once), edit, roll with a grace period, revoke. A key's name leads to its page and usage chart.

export function ServiceAccountKeys({
  orgId,
  account,
  onNotice,
}: {
  orgId: string;
  account: ServiceAccount;
  onNotice: (text: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const of = { orgId, userId: account.id };
  const [creating, setCreating] = useState(false);
  const refresh = () => queryClient.invalidateQueries(trpc.apiKeys.list.pathFilter());
  const keyActions = useKeyActions(onNotice, () => void refresh(), of);
  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create key for {account.username}
    </button>
  );

  return (
    <HeadedSection
      level={2}
      className="mt-10"
      title={`Keys of ${account.username}`}
      description="Each key acts as the service account, in this organization only, within its scopes and the account's roles."
      actions={createButton}
    >
      <div className="mt-4">
        <KeyTable
          ownerId={account.id}
          caption={`API keys of ${account.username}`}
          empty={{ title: `${account.username} has no API keys yet.`, action: createButton }}
          actions={keyActions.starts}
        />
      </div>
      <CreateKeyDialog
        ownerId={account.id}
        of={of}
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          keyActions.showCreated(key);
          onNotice(`API key “${key.name}” created for ${account.username}.`);
          void refresh();
        }}
      />
      {keyActions.dialogs}
    </HeadedSection>
  );
}
