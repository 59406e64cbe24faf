import type { Metadata } from "next";
import { OrganizationsScreen } from "@/components/tenancy/organizations-screen";
import { organizationListOptions } from "@/components/tenancy/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Organizations — svc console" };

export default async function OrganizationsPage() {
  // The first paint shows the first page of organizations without filters.
  return prefetched(<OrganizationsScreen />, organizationListOptions(trpc));
}
