import { ConversationsSection } from "@/components/tenancy/conversations-section";
import { memberChoicesOptions } from "@/components/tenancy/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationConversationsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<ConversationsSection orgId={orgId} />, memberChoicesOptions(trpc, orgId));
}
