import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { z } from "zod";
import type { listOrchestratorsQuery } from "@/lib/schemas/orchestrators";
import type { listOrganizationsQuery } from "@/lib/schemas/organizations";
import type { AppRouter } from "@/server/trpc/root";

// The tenancy screens' queries, built the same way by the pages (server prefetch) and the screens
// (browser), so what the server prefetched is what the screen reads.

type Trpc = TRPCOptionsProxy<AppRouter>;

const PAGE_SIZE = 25;

export type OrganizationFilters = Pick<
  z.input<typeof listOrganizationsQuery>,
  "q" | "status" | "tier" | "include_deleted"
>;

export const organizationListOptions = (trpc: Trpc, filters: OrganizationFilters = {}) =>
  trpc.organizations.list.infiniteQueryOptions(
    { limit: PAGE_SIZE, ...filters },
    { getNextPageParam: (page) => page.next_cursor },
  );

/** The organization page reads its organization deleted or not: a sys_admin restores from there. */
export const organizationOptions = (trpc: Trpc, orgId: string) =>
  trpc.organizations.get.queryOptions({ org_id: orgId, include_deleted: "true" });

export type OrchestratorFilters = Pick<
  z.input<typeof listOrchestratorsQuery>,
  "q" | "status" | "tier" | "framework_type" | "mode"
>;

export const orchestratorListOptions = (trpc: Trpc, orgId: string, filters: OrchestratorFilters = {}) =>
  trpc.orchestrators.list.infiniteQueryOptions(
    { org_id: orgId, limit: PAGE_SIZE, ...filters },
    { getNextPageParam: (page) => page.next_cursor },
  );

/** Every instance a central point may point at (the first 100), for the picker. */
export const orchestratorChoicesOptions = (trpc: Trpc, orgId: string) =>
  trpc.orchestrators.list.queryOptions({ org_id: orgId, limit: 100 });

export const centralPointListOptions = (trpc: Trpc, orgId: string) =>
  trpc.centralPoints.list.infiniteQueryOptions(
    { org_id: orgId, limit: PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );

export const conversationListOptions = (trpc: Trpc, orgId: string, userId: string) =>
  trpc.conversations.list.infiniteQueryOptions(
    { org_id: orgId, user_id: userId, limit: PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );

const MESSAGE_PAGE_SIZE = 50;

export const messageListOptions = (trpc: Trpc, orgId: string, conversationId: string) =>
  trpc.conversations.messages.infiniteQueryOptions(
    { org_id: orgId, conversation_id: conversationId, limit: MESSAGE_PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );

export const memberChoicesOptions = (trpc: Trpc, orgId: string, q?: string) =>
  trpc.members.list.queryOptions({ org_id: orgId, limit: 50, ...(q ? { q } : {}) });
