import type { Metadata } from "next";
import { ModelsScreen } from "@/components/models/models-screen";
import { modelListOptions, NO_FILTERS } from "@/components/models/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Models — svc console" };

export default async function ModelsPage() {
  await getQueryClient().prefetchInfiniteQuery(modelListOptions(trpc, NO_FILTERS));
  return (
    <HydrateClient>
      <ModelsScreen />
    </HydrateClient>
  );
}
