import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/root";

// The Directory sync section's lists (./directory-sync-section.tsx), built the same way by the page
// (server prefetch) and the section (browser), so what the server prefetched is what it reads.

type Trpc = TRPCOptionsProxy<AppRouter>;

const PAGE_SIZE = 25;
const next = { getNextPageParam: (page: { next_cursor: string | null }) => page.next_cursor };

export const scimTokenListOptions = (trpc: Trpc, orgId: string) =>
  trpc.scim.listTokens.infiniteQueryOptions({ org_id: orgId, limit: PAGE_SIZE }, next);

export const scimUserListOptions = (trpc: Trpc, orgId: string) =>
  trpc.scim.listUsers.infiniteQueryOptions({ org_id: orgId, limit: PAGE_SIZE }, next);

export const scimGroupListOptions = (trpc: Trpc, orgId: string) =>
  trpc.scim.listGroups.infiniteQueryOptions({ org_id: orgId, limit: PAGE_SIZE }, next);

export const scimRequestListOptions = (trpc: Trpc, orgId: string) =>
  trpc.scim.listRequests.infiniteQueryOptions({ org_id: orgId, limit: PAGE_SIZE }, next);
