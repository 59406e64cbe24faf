"use client";

import { useState } from "react";
import type { ApiKey, CreatedApiKey } from "@/lib/schemas/api-keys";
import { useTRPCClient } from "@/trpc/react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useOpenedOnce } from "@/components/ui/dialog";
import { keyCalls, type ServiceAccountRef } from "./key-calls";
import { NewKeyDialog } from "./new-key-dialog";
import { onDemand } from "@/components/ui/form-loading";

// What an owner does to a key, from the list, the key's own page and a service account's keys
// alike: edit, roll (the new key shown once), change its balance and revoke. The forms load when
// first opened, not with the page.

const EditKeyDialog = onDemand(() => import("./edit-key-dialog").then((m) => m.EditKeyDialog));
const RollKeyDialog = onDemand(() => import("./roll-key-dialog").then((m) => m.RollKeyDialog));
const CreditsDialog = onDemand(() => import("./credits-dialog").then((m) => m.CreditsDialog));

export interface KeyActionStarts {
  onEdit: (key: ApiKey) => void;
  onRoll: (key: ApiKey) => void;
  onCredits: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => void;
}

/**
 * The actions' starts (for buttons) and their dialogs (to render once) on the keys of `of` (default:
 * the signed-in user's own); each says what it did and calls `onChanged`.
 */
export function useKeyActions(say: (text: string) => void, onChanged: () => void, of?: ServiceAccountRef) {
  const client = useTRPCClient();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const [crediting, setCrediting] = useState<ApiKey | null>(null);
  const editOpened = useOpenedOnce(editing !== null);
  const rollOpened = useOpenedOnce(rolling !== null);
  const creditsOpened = useOpenedOnce(crediting !== null);
  const starts: KeyActionStarts = {
    onEdit: setEditing,
    onRoll: setRolling,
    onCredits: setCrediting,
    onRevoke: setRevoking,
  };
  const dialogs = (
    <>
      {editOpened && (
        <EditKeyDialog
          apiKey={editing}
          of={of}
          onClose={() => setEditing(null)}
          onSaved={(key) => {
            setEditing(null);
            say(`API key “${key.name}” saved.`);
            onChanged();
          }}
        />
      )}
      {rollOpened && (
        <RollKeyDialog
          apiKey={rolling}
          of={of}
          onClose={() => setRolling(null)}
          onRolled={(key) => {
            setRolling(null);
            setCreated(key);
            say(`API key “${key.name}” rolled.`);
            onChanged();
          }}
        />
      )}
      {creditsOpened && (
        <CreditsDialog
          apiKey={crediting}
          of={of}
          onClose={() => setCrediting(null)}
          onChanged={(key) => {
            setCrediting(null);
            say(
              key.credits
                ? `API key “${key.name}” has ${key.credits.remaining.toLocaleString("en")} credit${key.credits.remaining === 1 ? "" : "s"}.`
                : `API key “${key.name}” is unlimited.`,
            );
            onChanged();
          }}
        />
      )}
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
      <ConfirmDialog
        subject={revoking}
        title={(key) => `Revoke “${key.name}”?`}
        body={(key) => (
          <>
            Everything that uses the key <code className="font-mono">{key.key_prefix}…</code> stops working at once. A
            revoked key cannot be used again.
          </>
        )}
        confirmLabel="Revoke key"
        pendingLabel="Revoking…"
        onClose={() => setRevoking(null)}
        run={(key) => keyCalls(client, of).revoke(key.id)}
        onDone={(key) => {
          setRevoking(null);
          say(`API key “${key.name}” revoked.`);
          onChanged();
        }}
      />
    </>
  );
  return { starts, dialogs, showCreated: setCreated };
}
