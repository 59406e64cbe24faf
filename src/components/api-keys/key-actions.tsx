"use client";

import { useMutation } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState } from "react";
import type { ApiKey, CreatedApiKey } from "@/lib/schemas/api-keys";
import { useTRPC } from "@/trpc/react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useOpenedOnce } from "@/components/ui/dialog";
import type { NoticeState } from "@/components/ui/resource-section";
import { NewKeyDialog } from "./new-key-dialog";

// What an owner does to a key, from the list and from the key's own page alike: edit, roll (the new
// key shown once) and revoke. The edit and roll forms load when first opened, not with the page.

const EditKeyDialog = dynamic(() => import("./edit-key-dialog").then((m) => m.EditKeyDialog));
const RollKeyDialog = dynamic(() => import("./roll-key-dialog").then((m) => m.RollKeyDialog));

export interface KeyActionStarts {
  onEdit: (key: ApiKey) => void;
  onRoll: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => void;
}

/** The actions' starts (for buttons) and their dialogs (to render once); `onChanged` after each. */
export function useKeyActions(notice: NoticeState, onChanged: () => void) {
  const trpc = useTRPC();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions());
  const editOpened = useOpenedOnce(editing !== null);
  const rollOpened = useOpenedOnce(rolling !== null);
  const starts: KeyActionStarts = { onEdit: setEditing, onRoll: setRolling, onRevoke: setRevoking };
  const dialogs = (
    <>
      {editOpened && (
        <EditKeyDialog
          apiKey={editing}
          onClose={() => setEditing(null)}
          onSaved={(key) => {
            setEditing(null);
            notice.say(`API key “${key.name}” saved.`);
            onChanged();
          }}
        />
      )}
      {rollOpened && (
        <RollKeyDialog
          apiKey={rolling}
          onClose={() => setRolling(null)}
          onRolled={(key) => {
            setRolling(null);
            setCreated(key);
            notice.say(`API key “${key.name}” rolled.`);
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
        run={(key) => revoke.mutateAsync({ key_id: key.id })}
        onDone={(key) => {
          setRevoking(null);
          notice.say(`API key “${key.name}” revoked.`);
          onChanged();
        }}
      />
    </>
  );
  return { starts, dialogs, showCreated: setCreated };
}
