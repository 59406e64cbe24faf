import { DomainsSection } from "@/components/tenancy/domains-section";
import { SettingsSection } from "@/components/tenancy/settings-section";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationSettingsPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(
    <div className="space-y-10">
      <SettingsSection orgId={orgId} />
      <DomainsSection orgId={orgId} />
    </div>,
    trpc.orgSettings.list.queryOptions({ org_id: orgId }),
    trpc.orgSettings.effective.queryOptions({ org_id: orgId }),
    trpc.domains.list.queryOptions({ org_id: orgId }),
  );
}
