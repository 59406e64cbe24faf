import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/root";

// An organization's service accounts, built the same way by the page (server prefetch) and the
// screen (browser).

const PAGE_SIZE = 25;

export const serviceAccountListOptions = (trpc: TRPCOptionsProxy<AppRouter>, orgId: string) =>
  trpc.serviceAccounts.list.infiniteQueryOptions(
    { org_id: orgId, limit: PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );
