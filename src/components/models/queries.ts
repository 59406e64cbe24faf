import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { MODEL_CATEGORIES } from "@/lib/schemas/models";
import type { AppRouter } from "@/server/trpc/root";

// The model list query, built the same way by the page (server prefetch) and the screen.

const PAGE_SIZE = 50;

export type ModelFilters = {
  /** Provider, model ID or display name. */
  q: string;
  category: (typeof MODEL_CATEGORIES)[number] | "";
  status: "all" | "enabled" | "disabled";
};

export const NO_FILTERS: ModelFilters = { q: "", category: "", status: "all" };

function modelListInput(filters: ModelFilters) {
  const q = filters.q.trim();
  return {
    limit: PAGE_SIZE,
    ...(q ? { q } : {}),
    ...(filters.category ? { model_category: filters.category } : {}),
    ...(filters.status === "all" ? {} : { enabled: filters.status === "enabled" ? "true" : "false" }),
  };
}

export const modelListOptions = (trpc: TRPCOptionsProxy<AppRouter>, filters: ModelFilters) =>
  trpc.models.list.infiniteQueryOptions(modelListInput(filters), { getNextPageParam: (page) => page.next_cursor });
