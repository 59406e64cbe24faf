import { CentralPointsSection } from "@/components/tenancy/central-points-section";
import { centralPointListOptions, orchestratorChoicesOptions } from "@/components/tenancy/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationCentralPointsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchInfiniteQuery(centralPointListOptions(trpc, orgId)),
    queryClient.prefetchQuery(orchestratorChoicesOptions(trpc, orgId)),
  ]);
  return (
    <HydrateClient>
      <CentralPointsSection orgId={orgId} />
    </HydrateClient>
  );
}
