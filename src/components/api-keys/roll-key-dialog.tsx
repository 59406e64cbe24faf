"use client";

import {
  GRACE_CHOICES,
  rollApiKeyInput,
  type ApiKey,
  type CreatedApiKey,
  type RollApiKeyInput,
} from "@/lib/schemas/api-keys";
import { Dialog } from "@/components/ui/dialog";
import { RadioGroup } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { useTRPCClient } from "@/trpc/react";
import { keyCalls, type ServiceAccountRef } from "./key-calls";

// "Roll": a new key like this one, shown once as at creation; the old one keeps working for the
// grace period picked, so whatever uses it can be moved over.

export function RollKeyDialog({
  apiKey,
  of,
  onClose,
  onRolled,
}: {
  apiKey: ApiKey | null;
  /** A service account's key: rolled through its organization. */
  of?: ServiceAccountRef;
  onClose: () => void;
  onRolled: (key: CreatedApiKey) => void;
}) {
  return (
    <Dialog
      open={apiKey !== null}
      onClose={onClose}
      title={apiKey ? `Roll “${apiKey.name}”?` : "Roll key"}
      description="A new key with the same name, scopes and restrictions replaces this one."
    >
      {apiKey && <RollKeyForm apiKey={apiKey} of={of} onCancel={onClose} onRolled={onRolled} />}
    </Dialog>
  );
}

function RollKeyForm({
  apiKey,
  of,
  onCancel,
  onRolled,
}: {
  apiKey: ApiKey;
  of?: ServiceAccountRef;
  onCancel: () => void;
  onRolled: (key: CreatedApiKey) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ grace: string }, RollApiKeyInput>({
    schema: rollApiKeyInput,
    defaultValues: { grace: String(GRACE_CHOICES[2].seconds) },
    toInput: ({ grace }) => ({ grace_period_seconds: Number(grace) }),
    submit: async (input) => onRolled(await keyCalls(client, of).roll(apiKey.id, input)),
  });
  return (
    <Form form={form} className="space-y-6">
      <RadioGroup
        legend="The old key keeps working for"
        name="grace"
        subject="Grace period"
        hint={
          <>
            Then <code className="font-mono">{apiKey.key_prefix}…</code> is refused.
          </>
        }
        options={GRACE_CHOICES.map((choice) => ({ value: String(choice.seconds), label: choice.label }))}
      />
      <DialogButtons onCancel={onCancel} label="Roll key" pendingLabel="Rolling…" />
    </Form>
  );
}
