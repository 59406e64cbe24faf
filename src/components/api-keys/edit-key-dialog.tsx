"use client";

import { parseRateLimit, updateApiKeyInput, type ApiKey, type UpdateApiKeyInput } from "@/lib/schemas/api-keys";
import { Dialog } from "@/components/ui/dialog";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { useTRPCClient } from "@/trpc/react";
import { RateLimitField } from "./create-key-dialog";
import { CreditFields, creditsInputOf, creditValues, type CreditValues } from "./credit-fields";
import { keyCalls, type ServiceAccountRef } from "./key-calls";
import { MetaField, metaInputOf, metaValues, type MetaValues } from "./meta-field";
import { RestrictionFields, restrictionInput, restrictionValues, type RestrictionValues } from "./restriction-fields";

// "Edit key": its name, rate limit, restrictions, budget and metadata. Scopes never change: a key
// that needs other scopes is a new key. The budget is sent only when it was changed here: saving it
// sets the balance, which requests may have spent since the dialog opened.

interface EditValues extends RestrictionValues, CreditValues, MetaValues {
  name: string;
  rate_limit: string;
}

const rateLimitText = (key: ApiKey) =>
  key.rate_limit ? `${key.rate_limit.requests}/${key.rate_limit.window_seconds}` : "";

export function EditKeyDialog({
  apiKey,
  of,
  onClose,
  onSaved,
}: {
  apiKey: ApiKey | null;
  /** A service account's key: changed through its organization. */
  of?: ServiceAccountRef;
  onClose: () => void;
  onSaved: (key: ApiKey) => void;
}) {
  return (
    <Dialog
      open={apiKey !== null}
      onClose={onClose}
      title={apiKey ? `Edit “${apiKey.name}”` : "Edit key"}
      description="Scopes never change; for other scopes, create a new key."
    >
      {apiKey && <EditKeyForm apiKey={apiKey} of={of} onCancel={onClose} onSaved={onSaved} />}
    </Dialog>
  );
}

function EditKeyForm({
  apiKey,
  of,
  onCancel,
  onSaved,
}: {
  apiKey: ApiKey;
  of?: ServiceAccountRef;
  onCancel: () => void;
  onSaved: (key: ApiKey) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<EditValues, UpdateApiKeyInput>({
    schema: updateApiKeyInput,
    defaultValues: {
      name: apiKey.name,
      rate_limit: rateLimitText(apiKey),
      ...restrictionValues(apiKey),
      ...creditValues(apiKey),
      ...metaValues(apiKey),
    },
    toInput: (values, problem) => {
      const rateLimit = values.rate_limit.trim() === "" ? null : parseRateLimit(values.rate_limit);
      if (rateLimit === undefined) problem("rate_limit", "Write the rate limit as requests/seconds, like 600/60.");
      const lowAt = apiKey.credits?.low_at ?? null;
      const credits = creditsInputOf(values, problem, lowAt);
      const unchanged =
        JSON.stringify(credits) === JSON.stringify(creditsInputOf(creditValues(apiKey), () => {}, lowAt));
      return {
        name: values.name,
        rate_limit: rateLimit ?? null,
        ...restrictionInput(values),
        ...(unchanged ? {} : { credits }),
        meta: metaInputOf(values, problem),
      };
    },
    submit: async (input) => onSaved(await keyCalls(client, of).update(apiKey.id, input)),
  });
  return (
    <Form form={form} className="space-y-6">
      <TextField name="name" label="Name" autoComplete="off" />
      <RateLimitField />
      <RestrictionFields ownerId={apiKey.user_id} />
      <CreditFields editing />
      <MetaField />
      <DialogButtons onCancel={onCancel} label="Save changes" />
    </Form>
  );
}
