import type { Metadata } from "next";
import { RolesScreen } from "@/components/identity/roles-screen";
import { roleListOptions } from "@/components/identity/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Roles — svc console" };

export default async function RolesPage() {
  return prefetched(<RolesScreen />, roleListOptions(trpc));
}
