import { MembersScreen } from "@/components/identity/members-screen";
import { memberListOptions } from "@/components/identity/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationMembersPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  await getQueryClient().prefetchInfiniteQuery(memberListOptions(trpc, orgId));
  return (
    <HydrateClient>
      <MembersScreen orgId={orgId} />
    </HydrateClient>
  );
}
