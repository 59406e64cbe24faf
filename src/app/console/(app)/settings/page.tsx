import type { Metadata } from "next";
import { PlatformSettingsScreen } from "@/components/tenancy/platform-settings-screen";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Platform settings — svc console" };

export default async function PlatformSettingsPage() {
  return prefetched(<PlatformSettingsScreen />, trpc.platformSettings.list.queryOptions({ limit: 100 }));
}
