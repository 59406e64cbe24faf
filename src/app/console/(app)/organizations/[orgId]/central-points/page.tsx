import { CentralPointsSection } from "@/components/tenancy/central-points-section";
import { centralPointListOptions, orchestratorChoicesOptions } from "@/components/tenancy/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationCentralPointsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(
    <CentralPointsSection orgId={orgId} />,
    centralPointListOptions(trpc, orgId),
    orchestratorChoicesOptions(trpc, orgId),
  );
}
