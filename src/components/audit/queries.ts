import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { z } from "zod";
import type { listAuditEventsQuery } from "@/lib/schemas/audit";
import type { AppRouter } from "@/server/trpc/root";

// The audit log's queries, built the same way by the pages (server prefetch) and the screens.

type Trpc = TRPCOptionsProxy<AppRouter>;

const PAGE_SIZE = 25;

export type AuditFilters = Pick<
  z.input<typeof listAuditEventsQuery>,
  "action" | "actor_user_id" | "actor_username" | "target_id" | "since" | "until"
>;

/** The platform's events, or one organization's when `orgId` is given. */
export const auditListOptions = (trpc: Trpc, filters: AuditFilters = {}, orgId?: string) =>
  orgId === undefined
    ? trpc.auditEvents.list.infiniteQueryOptions(
        { limit: PAGE_SIZE, ...filters },
        { getNextPageParam: (page) => page.next_cursor },
      )
    : trpc.auditEvents.listInOrganization.infiniteQueryOptions(
        { org_id: orgId, limit: PAGE_SIZE, ...filters },
        { getNextPageParam: (page) => page.next_cursor },
      );
