import "server-only";
import type { Context } from "@/server/db/context";
import { Prisma } from "@/generated/prisma/client";
import { readableOrganizations } from "@/server/auth/authorize";
import type { DataLayer } from "@/server/db/data-layer";
import { notFound } from "@/server/errors";
import { withAccessChange } from "@/server/services/access-changes";
import { newestFirst, paginate } from "@/server/services/pagination";
import { searchNewestFirst, type SearchedTable } from "@/server/services/search";
import type { z } from "zod";
import type {
  CreateOrganizationInput,
  ListOrganizationsQuery,
  organizationSchema,
  UpdateOrganizationInput,
  UpdateSubscriptionInput,
} from "@/lib/schemas/organizations";

// Organizations, the tenant boundary. Authorization is declared by the adapters; this module keeps
// the tenancy rules: who sees which organizations, and soft deletion.

type OrganizationRow = Prisma.OrganizationGetPayload<object>;
type Organization = z.output<typeof organizationSchema>;

// A mapper: the column `subscription_tier` is the API's `tier`.
function toOrganization(row: OrganizationRow): Organization {
  const { subscription_tier, created_by: _c, updated_by: _u, ...rest } = row;
  return { ...rest, tier: subscription_tier as Organization["tier"] };
}

/** The organization, or a 404 when it does not exist or is soft-deleted. */
export async function requireOrganization(
  db: Pick<DataLayer, "organization">,
  orgId: string,
): Promise<OrganizationRow> {
  const org = await db.organization.findUnique({ where: { id: orgId } });
  if (!org) throw notFound("organization");
  return org;
}

function data(input: CreateOrganizationInput | UpdateOrganizationInput | UpdateSubscriptionInput) {
  const { tier, ...rest } = input as UpdateSubscriptionInput & Record<string, unknown>;
  return { ...rest, ...(tier === undefined ? {} : { subscription_tier: tier }) };
}

export async function createOrganization(ctx: Context, input: CreateOrganizationInput): Promise<Organization> {
  const row = await ctx.db.organization.create({ data: { ...data(input), name: input.name } });
  return toOrganization(row);
}

// The `q` search: name, display name or domain, each with a trigram index (search.ts).
const SEARCHED: SearchedTable = {
  table: "organizations",
  columns: ["name", "display_name", "domain"],
  select: Object.values(Prisma.OrganizationScalarFieldEnum),
};

/**
 * Organizations the actor may see: every one for holders of svc:system:orgs:read (sys_admins
 * among them), otherwise those where it holds svc:org:read. Deleted ones only for sys_admins.
 */
export async function listOrganizations(ctx: Context, query: ListOrganizationsQuery) {
  const includeDeleted = query.include_deleted === true;
  const db = includeDeleted ? ctx.includingDeleted() : ctx.db;
  const readable = readableOrganizations(ctx.actor);
  if (query.q) {
    const q = query.q;
    if (readable !== "all" && readable.length === 0) return { data: [], next_cursor: null };
    const filters = [
      ...(includeDeleted ? [] : [Prisma.sql`NOT is_deleted`]),
      ...(readable === "all"
        ? []
        : [Prisma.sql`id IN (${Prisma.join(readable.map((id) => Prisma.sql`${id}::uuid`))})`]),
      ...(query.status ? [Prisma.sql`status = ${query.status}`] : []),
      ...(query.tier ? [Prisma.sql`subscription_tier = ${query.tier}`] : []),
    ];
    return paginate(
      query,
      newestFirst,
      (w) => searchNewestFirst<OrganizationRow>(db, SEARCHED, q, filters, w),
      toOrganization,
    );
  }
  const where: Prisma.OrganizationWhereInput = {
    ...(readable === "all" ? {} : { id: { in: readable } }),
    ...(query.status ? { status: query.status } : {}),
    ...(query.tier ? { subscription_tier: query.tier } : {}),
  };
  return paginate(
    query,
    newestFirst,
    (w) => db.organization.findMany({ where: { AND: [where, w.after] }, orderBy: w.orderBy, take: w.take }),
    toOrganization,
  );
}

export async function getOrganization(ctx: Context, orgId: string, options: { includeDeleted?: boolean } = {}) {
  const db = options.includeDeleted === true ? ctx.includingDeleted() : ctx.db;
  return toOrganization(await requireOrganization(db, orgId));
}

export async function updateOrganization(
  ctx: Context,
  orgId: string,
  input: UpdateOrganizationInput | UpdateSubscriptionInput,
): Promise<Organization> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    const before = await requireOrganization(tx, orgId);
    const row = await tx.organization.update({ where: { id: orgId }, data: data(input) });
    // Suspending or reactivating changes what members and their keys may do there, at once; a new
    // name is what their keys' /api/v1/me shows at once.
    const seenByKeys = row.status !== before.status || row.name !== before.name;
    return { result: toOrganization(row), event: seenByKeys ? { all: true } : null };
  });
}

/**
 * Soft delete: the organization and everything in it disappear from normal reads, and its members'
 * API keys lose it at their next request, in every process.
 */
export async function deleteOrganization(ctx: Context, orgId: string): Promise<Organization> {
  return withAccessChange(ctx.db, async (tx) => {
    await requireOrganization(tx, orgId);
    const row = await tx.organization.update({ where: { id: orgId }, data: { is_deleted: true } });
    return { result: toOrganization(row), event: { all: true } };
  });
}

export async function restoreOrganization(ctx: Context, orgId: string): Promise<Organization> {
  return withAccessChange(ctx.includingDeleted(), async (tx) => {
    const org = await requireOrganization(tx, orgId);
    if (!org.is_deleted) return { result: toOrganization(org), event: null };
    const row = await tx.organization.update({ where: { id: orgId }, data: { is_deleted: false } });
    return { result: toOrganization(row), event: { all: true } };
  });
}
