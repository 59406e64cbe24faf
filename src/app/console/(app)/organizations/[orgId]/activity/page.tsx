import { AuditEvents } from "@/components/audit/audit-log";
import { auditListOptions } from "@/components/audit/queries";
import { prefetched, trpc } from "@/trpc/server";
import type { OrgPageProps } from "../org-page";

export default async function OrganizationActivityPage({ params }: OrgPageProps) {
  const { orgId } = await params;
  return prefetched(<AuditEvents orgId={orgId} />, auditListOptions(trpc, {}, orgId));
}
