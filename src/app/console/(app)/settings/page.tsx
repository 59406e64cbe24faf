import type { Metadata } from "next";
import { PlatformSettingsScreen } from "@/components/tenancy/platform-settings-screen";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Platform settings — svc console" };

export default async function PlatformSettingsPage() {
  await getQueryClient().prefetchQuery(trpc.platformSettings.list.queryOptions({ limit: 100 }));
  return (
    <HydrateClient>
      <PlatformSettingsScreen />
    </HydrateClient>
  );
}
