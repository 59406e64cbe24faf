import type { Metadata } from "next";
import { AuditLogScreen } from "@/components/audit/audit-log";
import { auditListOptions } from "@/components/audit/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Audit log — svc console" };

export default async function AuditLogPage() {
  return prefetched(<AuditLogScreen />, auditListOptions(trpc));
}
