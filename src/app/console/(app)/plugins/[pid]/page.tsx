import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PID } from "@/lib/schemas/plugins";
import { PluginVersionsScreen } from "@/components/plugins/plugin-versions-screen";
import { versionsOptions } from "@/components/plugins/queries";
import { prefetched, trpc } from "@/trpc/server";

// A pid is lowercase letters, digits, dots, dashes and underscores: nothing in it is URL-encoded.
interface Props {
  params: Promise<{ pid: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `${(await params).pid} — Plugins — svc console` };
}

export default async function PluginVersionsPage({ params }: Props) {
  const pid = (await params).pid;
  if (!PID.test(pid)) notFound();
  return prefetched(<PluginVersionsScreen pid={pid} />, versionsOptions(trpc, pid));
}
