import type { Metadata } from "next";
import { OAuthClientsScreen } from "@/components/identity/oauth-clients-screen";
import { clientListOptions } from "@/components/identity/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "OAuth clients — svc console" };

export default async function OAuthClientsPage() {
  await getQueryClient().prefetchInfiniteQuery(clientListOptions(trpc, { status: "all", include_deleted: false }));
  return (
    <HydrateClient>
      <OAuthClientsScreen />
    </HydrateClient>
  );
}
