import { ServiceAccountsScreen } from "@/components/service-accounts/service-accounts-screen";
import { serviceAccountListOptions } from "@/components/service-accounts/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationServiceAccountsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<ServiceAccountsScreen orgId={orgId} />, serviceAccountListOptions(trpc, orgId));
}
