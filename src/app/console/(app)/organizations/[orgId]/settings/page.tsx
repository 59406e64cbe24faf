import { SettingsSection } from "@/components/tenancy/settings-section";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationSettingsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.orgSettings.list.queryOptions({ org_id: orgId })),
    queryClient.prefetchQuery(trpc.orgSettings.effective.queryOptions({ org_id: orgId })),
  ]);
  return (
    <HydrateClient>
      <SettingsSection orgId={orgId} />
    </HydrateClient>
  );
}
