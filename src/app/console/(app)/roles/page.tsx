import type { Metadata } from "next";
import { RolesScreen } from "@/components/identity/roles-screen";
import { roleListOptions } from "@/components/identity/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Roles — svc console" };

export default async function RolesPage() {
  await getQueryClient().prefetchInfiniteQuery(roleListOptions(trpc));
  return (
    <HydrateClient>
      <RolesScreen />
    </HydrateClient>
  );
}
