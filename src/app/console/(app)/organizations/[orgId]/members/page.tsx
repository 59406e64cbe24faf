import { MembersScreen } from "@/components/identity/members-screen";
import { memberListOptions } from "@/components/identity/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationMembersPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<MembersScreen orgId={orgId} />, memberListOptions(trpc, orgId));
}
