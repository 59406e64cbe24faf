import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { z } from "zod";
import type { listRolesQuery, ROLE_SCOPES } from "@/lib/schemas/roles";
import type { listUsersQuery } from "@/lib/schemas/users";
import type { AppRouter } from "@/server/trpc/root";

// The identity screens' queries, built the same way by the pages (server prefetch) and the screens
// (browser), so what the server prefetched is what the screen reads.

type Trpc = TRPCOptionsProxy<AppRouter>;

const PAGE_SIZE = 25;

export type UserFilters = Pick<z.input<typeof listUsersQuery>, "q" | "include_deleted">;

export const userListOptions = (trpc: Trpc, filters: UserFilters = {}) =>
  trpc.users.list.infiniteQueryOptions(
    { limit: PAGE_SIZE, ...filters },
    { getNextPageParam: (page) => page.next_cursor },
  );

/** The user page reads its user deleted or not: a sys_admin restores from there. */
export const userOptions = (trpc: Trpc, userId: string) =>
  trpc.users.get.queryOptions({ user_id: userId, include_deleted: "true" });

export const userOrganizationsOptions = (trpc: Trpc, userId: string) =>
  trpc.users.organizations.queryOptions({ user_id: userId, limit: 100 });
export const userGrantsOptions = (trpc: Trpc, userId: string) => trpc.roles.grants.queryOptions({ user_id: userId });
export const effectivePermissionsOptions = (trpc: Trpc, userId: string) =>
  trpc.roles.effective.queryOptions({ user_id: userId });
export const identitiesOptions = (trpc: Trpc, userId: string) =>
  trpc.users.identities.queryOptions({ user_id: userId });

export type RoleFilters = Pick<z.input<typeof listRolesQuery>, "scope" | "q">;

export const roleListOptions = (trpc: Trpc, filters: RoleFilters = {}) =>
  trpc.roles.list.infiniteQueryOptions(
    { limit: PAGE_SIZE, ...filters },
    { getNextPageParam: (page) => page.next_cursor },
  );

/** Every role of a scope (the first 100), for the grant pickers. */
export const roleChoicesOptions = (trpc: Trpc, scope: (typeof ROLE_SCOPES)[number]) =>
  trpc.roles.list.queryOptions({ scope, limit: 100 });

export const roleOptions = (trpc: Trpc, roleId: string) => trpc.roles.get.queryOptions({ role_id: roleId });

export const memberListOptions = (trpc: Trpc, orgId: string, q?: string) =>
  trpc.members.list.infiniteQueryOptions(
    { org_id: orgId, limit: PAGE_SIZE, ...(q ? { q } : {}) },
    { getNextPageParam: (page) => page.next_cursor },
  );

export type ClientStatus = "all" | "active" | "inactive";

export interface ClientFilters {
  q?: string;
  status: ClientStatus;
  include_deleted: boolean;
}

export const clientListOptions = (trpc: Trpc, { q, status, include_deleted }: ClientFilters) =>
  trpc.oauthClients.list.infiniteQueryOptions(
    {
      limit: PAGE_SIZE,
      ...(q ? { q } : {}),
      ...(status === "all" ? {} : { active: status === "active" ? "true" : "false" }),
      ...(include_deleted ? { include_deleted: "true" } : {}),
    },
    { getNextPageParam: (page) => page.next_cursor },
  );

export const invitationListOptions = (trpc: Trpc, orgId: string) =>
  trpc.invitations.list.infiniteQueryOptions(
    { org_id: orgId, limit: PAGE_SIZE },
    { getNextPageParam: (page) => page.next_cursor },
  );
