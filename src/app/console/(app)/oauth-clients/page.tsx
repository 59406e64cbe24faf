import type { Metadata } from "next";
import { OAuthClientsScreen } from "@/components/identity/oauth-clients-screen";
import { clientListOptions } from "@/components/identity/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "OAuth clients — svc console" };

export default async function OAuthClientsPage() {
  return prefetched(<OAuthClientsScreen />, clientListOptions(trpc, { status: "all", include_deleted: false }));
}
