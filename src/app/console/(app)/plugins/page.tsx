import type { Metadata } from "next";
import { PluginsScreen } from "@/components/plugins/plugins-screen";
import { catalogOptions } from "@/components/plugins/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Plugins — svc console" };

export default async function PluginsPage() {
  return prefetched(<PluginsScreen />, catalogOptions(trpc));
}
