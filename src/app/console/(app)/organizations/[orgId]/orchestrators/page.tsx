import { OrchestratorsSection } from "@/components/tenancy/orchestrators-section";
import { orchestratorListOptions } from "@/components/tenancy/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationOrchestratorsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<OrchestratorsSection orgId={orgId} />, orchestratorListOptions(trpc, orgId));
}
