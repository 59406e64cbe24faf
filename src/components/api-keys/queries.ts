import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { z } from "zod";
import type { listApiKeysQuery } from "@/lib/schemas/api-keys";
import type { AppRouter } from "@/server/trpc/root";

// The key list query, built the same way by the page (server prefetch) and the screen (browser),
// so the prefetched pages are the ones the screen reads.

const PAGE_SIZE = 25;

export type StatusFilter = "all" | "active" | "revoked";

export type KeyListInput = z.input<typeof listApiKeysQuery>;

export function keyListInput(ownerId: string | null, status: StatusFilter): KeyListInput {
  return {
    limit: PAGE_SIZE,
    ...(ownerId ? { user_id: ownerId } : {}),
    ...(status === "all" ? {} : { active: status === "active" ? "true" : "false" }),
  };
}

export const keyListOptions = (trpc: TRPCOptionsProxy<AppRouter>, input: KeyListInput) =>
  trpc.apiKeys.list.infiniteQueryOptions(input, { getNextPageParam: (page) => page.next_cursor });
