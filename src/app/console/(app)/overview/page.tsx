import type { Metadata } from "next";
import { OverviewScreen } from "@/components/overview/overview-screen";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Overview — svc console" };

export default async function OverviewPage() {
  return prefetched(<OverviewScreen />, trpc.overview.get.queryOptions());
}
