import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/root";

// The plugin list queries, built the same way by the pages (server prefetch) and the screens.

const PAGE_SIZE = 50;

/** The system catalog: the latest version of each pid. */
export const catalogOptions = (trpc: TRPCOptionsProxy<AppRouter>) =>
  trpc.plugins.list.infiniteQueryOptions(
    { latest: "true", limit: PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );

/** Every version of one pid, newest registration first. */
export const versionsOptions = (trpc: TRPCOptionsProxy<AppRouter>, pid: string) =>
  trpc.plugins.list.infiniteQueryOptions({ pid, limit: PAGE_SIZE }, { getNextPageParam: (page) => page.next_cursor });

export const versionsHref = (pid: string) => `/console/plugins/${encodeURIComponent(pid)}`;
