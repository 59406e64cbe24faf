import { WebhooksSection } from "@/components/webhooks/webhooks-section";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationWebhooksPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<WebhooksSection orgId={orgId} />, trpc.orgWebhooks.list.queryOptions({ org_id: orgId }));
}
