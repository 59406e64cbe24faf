import type { z } from "zod";
import type { changeCreditsInput, createApiKeyInput, rollApiKeyInput, updateApiKeyInput } from "@/lib/schemas/api-keys";
import type { useTRPCClient } from "@/trpc/react";

// Whose keys the key dialogs act on: the signed-in admin's own (the API keys screen), or a service
// account's, through its organization's routes. The dialogs are the same either way.

/** A service account, in its organization. */
export interface ServiceAccountRef {
  orgId: string;
  userId: string;
}

type Client = ReturnType<typeof useTRPCClient>;

export function keyCalls(client: Client, of?: ServiceAccountRef) {
  const account = of ? { org_id: of.orgId, user_id: of.userId } : undefined;
  return {
    create: (input: z.input<typeof createApiKeyInput>) =>
      account ? client.serviceAccounts.createKey.mutate({ ...account, ...input }) : client.apiKeys.create.mutate(input),
    update: (keyId: string, input: z.input<typeof updateApiKeyInput>) =>
      account
        ? client.serviceAccounts.updateKey.mutate({ ...account, key_id: keyId, ...input })
        : client.apiKeys.update.mutate({ key_id: keyId, ...input }),
    roll: (keyId: string, input: z.input<typeof rollApiKeyInput>) =>
      account
        ? client.serviceAccounts.rollKey.mutate({ ...account, key_id: keyId, ...input })
        : client.apiKeys.roll.mutate({ key_id: keyId, ...input }),
    credits: (keyId: string, input: z.input<typeof changeCreditsInput>) =>
      account
        ? client.serviceAccounts.changeKeyCredits.mutate({ ...account, key_id: keyId, ...input })
        : client.apiKeys.credits.mutate({ key_id: keyId, ...input }),
    revoke: (keyId: string) =>
      account
        ? client.serviceAccounts.revokeKey.mutate({ ...account, key_id: keyId })
        : client.apiKeys.revoke.mutate({ key_id: keyId }),
  };
}
