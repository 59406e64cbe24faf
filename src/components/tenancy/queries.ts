import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/root";

// The tenancy screens' queries, built the same way by the pages (server prefetch) and the screens
// (browser), so what the server prefetched is what the screen reads.

type Trpc = TRPCOptionsProxy<AppRouter>;

export const PAGE_SIZE = 25;

export interface OrganizationFilters {
  q?: string;
  status?: "active" | "suspended" | "archived";
  tier?: "free" | "pro" | "enterprise";
  include_deleted?: boolean;
}

export const organizationListOptions = (trpc: Trpc, filters: OrganizationFilters = {}) =>
  trpc.organizations.list.infiniteQueryOptions({ limit: PAGE_SIZE, ...filters }, { getNextPageParam: (page) => page.next_cursor });

/** The organization page reads its organization deleted or not: a sys_admin restores from there. */
export const organizationOptions = (trpc: Trpc, orgId: string) => trpc.organizations.get.queryOptions({ org_id: orgId, include_deleted: true });

export interface OrchestratorFilters {
  q?: string;
  status?: "active" | "suspended" | "inactive";
  tier?: "demand" | "hot";
  framework_type?: "langgraph" | "openai_agents" | "google_adk";
  mode?: "supervisor" | "coordinator" | "handoff" | "grounded";
}

export const orchestratorListOptions = (trpc: Trpc, orgId: string, filters: OrchestratorFilters = {}) =>
  trpc.orchestrators.list.infiniteQueryOptions({ org_id: orgId, limit: PAGE_SIZE, ...filters }, { getNextPageParam: (page) => page.next_cursor });

/** Every instance a central point may point at (the first 100), for the picker. */
export const orchestratorChoicesOptions = (trpc: Trpc, orgId: string) => trpc.orchestrators.list.queryOptions({ org_id: orgId, limit: 100 });

export const centralPointListOptions = (trpc: Trpc, orgId: string) =>
  trpc.centralPoints.list.infiniteQueryOptions({ org_id: orgId, limit: PAGE_SIZE }, { getNextPageParam: (page) => page.next_cursor });

export const conversationListOptions = (trpc: Trpc, orgId: string, userId: string) =>
  trpc.conversations.list.infiniteQueryOptions({ org_id: orgId, user_id: userId, limit: PAGE_SIZE }, { getNextPageParam: (page) => page.next_cursor });

export const MESSAGE_PAGE_SIZE = 50;

export const messageListOptions = (trpc: Trpc, orgId: string, conversationId: string) =>
  trpc.conversations.messages.infiniteQueryOptions(
    { org_id: orgId, conversation_id: conversationId, limit: MESSAGE_PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );

export const memberChoicesOptions = (trpc: Trpc, orgId: string, q?: string) =>
  trpc.conversations.members.queryOptions({ org_id: orgId, limit: 50, ...(q ? { q } : {}) });
