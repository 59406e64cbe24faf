import type { Metadata } from "next";
import { ModelsScreen } from "@/components/models/models-screen";
import { modelListOptions, NO_FILTERS } from "@/components/models/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Models — svc console" };

export default async function ModelsPage() {
  return prefetched(<ModelsScreen />, modelListOptions(trpc, NO_FILTERS));
}
