import type { Metadata } from "next";
import { ApiKeysScreen } from "@/components/api-keys/api-keys-screen";
import { keyListInput, keyListOptions } from "@/components/api-keys/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "API keys — svc console" };

export default async function ApiKeysPage() {
  // The first paint shows the signed-in admin's keys; the create dialog has the policy at hand.
  return prefetched(
    <ApiKeysScreen />,
    keyListOptions(trpc, keyListInput(null, "all")),
    trpc.apiKeys.policy.queryOptions(),
  );
}
