"use client";

import { changeCreditsInput, type ApiKey, type ChangeCreditsInput } from "@/lib/schemas/api-keys";
import { Dialog } from "@/components/ui/dialog";
import { RadioGroup, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { useTRPCClient } from "@/trpc/react";
import { keyCalls, type ServiceAccountRef } from "./key-calls";

// "Change balance": set a key's credits, or add or take some away. Adding and taking away act on the
// balance as it is when the change lands, so credits spent meanwhile are not undone.

const OPERATIONS = [
  { value: "increment", label: "Add" },
  { value: "decrement", label: "Take away" },
  { value: "set", label: "Set to" },
] as const;

export function CreditsDialog({
  apiKey,
  of,
  onClose,
  onChanged,
}: {
  apiKey: ApiKey | null;
  /** A service account's key: changed through its organization. */
  of?: ServiceAccountRef;
  onClose: () => void;
  onChanged: (key: ApiKey) => void;
}) {
  return (
    <Dialog
      open={apiKey !== null}
      onClose={onClose}
      title={apiKey ? `Change the balance of “${apiKey.name}”` : "Change balance"}
      description={
        apiKey?.credits
          ? `${apiKey.credits.remaining.toLocaleString("en")} credits left now. Each request the key makes costs one.`
          : "The key is unlimited: set a balance to limit it."
      }
    >
      {apiKey && <CreditsForm apiKey={apiKey} of={of} onCancel={onClose} onChanged={onChanged} />}
    </Dialog>
  );
}

interface CreditsValues {
  op: ChangeCreditsInput["op"];
  amount: string;
}

function CreditsForm({
  apiKey,
  of,
  onCancel,
  onChanged,
}: {
  apiKey: ApiKey;
  of?: ServiceAccountRef;
  onCancel: () => void;
  onChanged: (key: ApiKey) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<CreditsValues, ChangeCreditsInput>({
    schema: changeCreditsInput,
    defaultValues: { op: apiKey.credits ? "increment" : "set", amount: "" },
    toInput: ({ op, amount }, problem) => {
      const value = Number(amount.trim());
      if (amount.trim() === "" || !Number.isInteger(value) || value < 0)
        problem("amount", "Write a whole number of credits, like 1000.");
      return { op, amount: value };
    },
    submit: async (input) => onChanged(await keyCalls(client, of).credits(apiKey.id, input)),
  });
  return (
    <Form form={form} className="space-y-6">
      <RadioGroup
        legend="Change"
        name="op"
        options={apiKey.credits ? OPERATIONS : OPERATIONS.filter((o) => o.value === "set")}
      />
      <TextField name="amount" label="Credits" inputMode="numeric" autoComplete="off" autoFocus />
      <DialogButtons onCancel={onCancel} label="Change balance" pendingLabel="Changing…" />
    </Form>
  );
}
