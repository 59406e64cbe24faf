import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { KeyDetailScreen } from "@/components/api-keys/key-detail-screen";
import { prefetched, sessionActor, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "API key — svc console" };

export default async function ApiKeyPage({ params }: { params: Promise<{ key_id: string }> }) {
  const { key_id: keyId } = await params;
  if (!z.uuid().safeParse(keyId).success) notFound();
  const actor = await sessionActor();
  if (!actor) return null; // the layout has sent the visitor to sign in
  return prefetched(
    <KeyDetailScreen keyId={keyId} userId={actor.userId} />,
    trpc.apiKeys.get.queryOptions({ key_id: keyId }),
    trpc.apiKeys.usage.queryOptions({ key_id: keyId }),
  );
}
