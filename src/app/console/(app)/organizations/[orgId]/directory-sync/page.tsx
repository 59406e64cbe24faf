import { roleChoicesOptions } from "@/components/identity/queries";
import {
  scimGroupListOptions,
  scimRequestListOptions,
  scimTokenListOptions,
  scimUserListOptions,
} from "@/components/tenancy/directory-sync-queries";
import { DirectorySyncSection } from "@/components/tenancy/directory-sync-section";
import { publicOrigin } from "@/server/http/public-origin";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationDirectorySyncPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(
    // The origin the SCIM service names its resources under (meta.location), not the browser's.
    <DirectorySyncSection orgId={orgId} origin={publicOrigin()} />,
    scimTokenListOptions(trpc, orgId),
    scimUserListOptions(trpc, orgId),
    scimGroupListOptions(trpc, orgId),
    scimRequestListOptions(trpc, orgId),
    roleChoicesOptions(trpc, "org"),
  );
}
