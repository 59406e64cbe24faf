import type { Metadata } from "next";
import { ApiKeysScreen } from "@/components/api-keys/api-keys-screen";
import { keyListInput, keyListOptions } from "@/components/api-keys/queries";
import { prefetched, sessionActor, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "API keys — svc console" };

export default async function ApiKeysPage() {
  // The first paint shows the signed-in admin's keys; the create dialog has the policy at hand.
  const actor = await sessionActor();
  if (!actor) return null; // the layout has sent the visitor to sign in
  return prefetched(
    <ApiKeysScreen userId={actor.userId} />,
    keyListOptions(trpc, keyListInput(null, "all")),
    trpc.apiKeys.policy.queryOptions(),
  );
}
