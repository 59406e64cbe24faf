import type { Metadata } from "next";
import { WebhooksSection } from "@/components/webhooks/webhooks-section";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Webhooks — svc console" };

export default async function WebhooksPage() {
  return prefetched(<WebhooksSection />, trpc.webhooks.list.queryOptions({}));
}
