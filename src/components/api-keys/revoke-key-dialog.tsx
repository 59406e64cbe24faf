"use client";

import { useMutation } from "@tanstack/react-query";
import type { ApiKey } from "@/lib/schemas/api-keys";
import { Dialog } from "@/components/ui/dialog";
import { dangerButton, secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";

interface RevokeKeyDialogProps {
  apiKey: ApiKey | null;
  onClose: () => void;
  onRevoked: (key: ApiKey) => void;
}

export function RevokeKeyDialog({ apiKey, onClose, onRevoked }: RevokeKeyDialogProps) {
  return (
    <Dialog open={apiKey !== null} onClose={onClose} title={apiKey ? `Revoke “${apiKey.name}”?` : "Revoke API key"} alert>
      {apiKey && <ConfirmRevoke apiKey={apiKey} onCancel={onClose} onRevoked={onRevoked} />}
    </Dialog>
  );
}

function ConfirmRevoke({ apiKey, onCancel, onRevoked }: { apiKey: ApiKey; onCancel: () => void; onRevoked: (key: ApiKey) => void }) {
  const trpc = useTRPC();
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: onRevoked }));
  return (
    <div className="space-y-4">
      <p className="text-sm leading-6 text-slate-600 dark:text-slate-300">
        Everything that uses the key <code className="font-mono">{apiKey.key_prefix}…</code> stops working at once. A
        revoked key cannot be used again.
      </p>
      {revoke.error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
          {messageOf(revoke.error)}
        </p>
      )}
      <div className="flex justify-end gap-3">
        <button type="button" onClick={onCancel} className={secondaryButton} autoFocus>
          Cancel
        </button>
        <button type="button" disabled={revoke.isPending} onClick={() => revoke.mutate({ key_id: apiKey.id })} className={dangerButton}>
          {revoke.isPending ? "Revoking…" : "Revoke key"}
        </button>
      </div>
    </div>
  );
}
