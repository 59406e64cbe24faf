"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiKey, CreatedApiKey } from "@/lib/schemas/api-keys";
import type { ServiceAccount } from "@/lib/schemas/service-accounts";
import { CreateKeyDialog } from "@/components/api-keys/create-key-dialog";
import { EditKeyDialog } from "@/components/api-keys/edit-key-dialog";
import { keyCalls } from "@/components/api-keys/key-calls";
import { KeyTable } from "@/components/api-keys/key-table";
import { NewKeyDialog } from "@/components/api-keys/new-key-dialog";
import { RollKeyDialog } from "@/components/api-keys/roll-key-dialog";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { HeadedSection } from "@/components/ui/page-header";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC, useTRPCClient } from "@/trpc/react";

// One service account's keys, with the personal keys' table and dialogs: create (shown once), edit,
// roll with a grace period, revoke. A key's name leads to its page and usage chart.

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
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const of = { orgId, userId: account.id };
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.apiKeys.list.pathFilter());
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
          actions={{ onEdit: setEditing, onRoll: setRolling, onRevoke: setRevoking }}
        />
      </div>
      <CreateKeyDialog
        ownerId={account.id}
        of={of}
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setCreated(key);
          onNotice(`API key “${key.name}” created for ${account.username}.`);
          void refresh();
        }}
      />
      <EditKeyDialog
        apiKey={editing}
        of={of}
        onClose={() => setEditing(null)}
        onSaved={(key) => {
          setEditing(null);
          onNotice(`API key “${key.name}” saved.`);
          void refresh();
        }}
      />
      <RollKeyDialog
        apiKey={rolling}
        of={of}
        onClose={() => setRolling(null)}
        onRolled={(key) => {
          setRolling(null);
          setCreated(key);
          onNotice(`API key “${key.name}” rolled.`);
          void refresh();
        }}
      />
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
      <ConfirmDialog
        subject={revoking}
        title={(key) => `Revoke “${key.name}”?`}
        body={(key) => (
          <>
            Everything that uses <code className="font-mono">{key.key_prefix}…</code> stops working at once.
          </>
        )}
        confirmLabel="Revoke key"
        pendingLabel="Revoking…"
        onClose={() => setRevoking(null)}
        run={(key) => keyCalls(client, of).revoke(key.id)}
        onDone={(key) => {
          setRevoking(null);
          onNotice(`API key “${key.name}” revoked.`);
          void refresh();
        }}
      />
    </HeadedSection>
  );
}
