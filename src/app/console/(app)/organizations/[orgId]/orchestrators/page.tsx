import { OrchestratorsSection } from "@/components/tenancy/orchestrators-section";
import { orchestratorListOptions } from "@/components/tenancy/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationOrchestratorsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  await getQueryClient().prefetchInfiniteQuery(orchestratorListOptions(trpc, orgId));
  return (
    <HydrateClient>
      <OrchestratorsSection orgId={orgId} />
    </HydrateClient>
  );
}
