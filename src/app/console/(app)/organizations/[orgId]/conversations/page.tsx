import { ConversationsSection } from "@/components/tenancy/conversations-section";
import { memberChoicesOptions } from "@/components/tenancy/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationConversationsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  await getQueryClient().prefetchQuery(memberChoicesOptions(trpc, orgId));
  return (
    <HydrateClient>
      <ConversationsSection orgId={orgId} />
    </HydrateClient>
  );
}
