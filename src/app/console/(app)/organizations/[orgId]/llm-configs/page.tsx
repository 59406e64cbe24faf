import { LlmConfigsSection } from "@/components/tenancy/llm-configs-section";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationLlmConfigsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  await getQueryClient().prefetchQuery(trpc.llmConfigs.list.queryOptions({ org_id: orgId }));
  return (
    <HydrateClient>
      <LlmConfigsSection orgId={orgId} />
    </HydrateClient>
  );
}
