import { InvitationsScreen } from "@/components/identity/invitations-screen";
import { invitationListOptions } from "@/components/identity/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationInvitationsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<InvitationsScreen orgId={orgId} />, invitationListOptions(trpc, orgId));
}
