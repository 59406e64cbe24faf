import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { MODEL_CATEGORIES } from "@/lib/schemas/models";
import type { AppRouter } from "@/server/trpc/root";

// The model list query, built the same way by the page (server prefetch) and the screen.

export const PAGE_SIZE = 50;

export interface ModelFilters {
  provider: string;
  category: (typeof MODEL_CATEGORIES)[number] | "";
  status: "all" | "enabled" | "disabled";
}

export const NO_FILTERS: ModelFilters = { provider: "", category: "", status: "all" };

export function modelListInput(filters: ModelFilters) {
  const provider = filters.provider.trim().toLowerCase();
  return {
    limit: PAGE_SIZE,
    ...(provider ? { provider } : {}),
    ...(filters.category ? { model_category: filters.category } : {}),
    ...(filters.status === "all" ? {} : { enabled: filters.status === "enabled" ? "true" : "false" }),
  };
}

export const modelListOptions = (trpc: TRPCOptionsProxy<AppRouter>, filters: ModelFilters) =>
  trpc.models.list.infiniteQueryOptions(modelListInput(filters), { getNextPageParam: (page) => page.next_cursor });
