import { LlmConfigsSection } from "@/components/tenancy/llm-configs-section";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationLlmConfigsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<LlmConfigsSection orgId={orgId} />, trpc.llmConfigs.list.queryOptions({ org_id: orgId }));
}
