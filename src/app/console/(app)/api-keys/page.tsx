import type { Metadata } from "next";
import { ApiKeysScreen } from "@/components/api-keys/api-keys-screen";
import { keyListInput, keyListOptions } from "@/components/api-keys/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "API keys — svc console" };

export default async function ApiKeysPage() {
  // The first paint shows the signed-in admin's keys; the create dialog has the policy at hand.
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchInfiniteQuery(keyListOptions(trpc, keyListInput(null, "all"))),
    queryClient.prefetchQuery(trpc.apiKeys.policy.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <ApiKeysScreen />
    </HydrateClient>
  );
}
