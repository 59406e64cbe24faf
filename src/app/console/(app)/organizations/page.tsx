import type { Metadata } from "next";
import { OrganizationsScreen } from "@/components/tenancy/organizations-screen";
import { organizationListOptions } from "@/components/tenancy/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Organizations — svc console" };

export default async function OrganizationsPage() {
  // The first paint shows the first page of organizations without filters.
  await getQueryClient().prefetchInfiniteQuery(organizationListOptions(trpc));
  return (
    <HydrateClient>
      <OrganizationsScreen />
    </HydrateClient>
  );
}
