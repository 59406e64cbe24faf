import { z } from "zod";
import { id } from "@/lib/schemas/common";
import {
  createOrganizationInput,
  listOrganizationsQuery,
  updateOrganizationInput,
  updateSubscriptionInput,
} from "@/lib/schemas/organizations";
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  restoreOrganization,
  updateOrganization,
} from "@/server/services/organizations/service";
import { consoleProcedure, createTRPCRouter, orgProcedure } from "../init";

// The console's organizations: the same services, schemas and permissions as the REST routes
// (src/server/rest/routes/organizations.ts). Tier and status change only through `updateSubscription`.

/** The REST query as the console sends it: `include_deleted` a boolean; TanStack's `direction` dropped. */
const listInput = z.object({ ...listOrganizationsQuery.shape, include_deleted: z.boolean().optional() });

export const organizationsRouter = createTRPCRouter({
  /** Search by name, display name or domain; filter by status and tier; deleted ones on request. */
  list: consoleProcedure("svc:system:orgs:read")
    .input(listInput)
    .query(({ ctx, input }) => listOrganizations(ctx.actor, input)),

  /** One organization; `include_deleted` lets a sys_admin open a deleted one (to restore it). */
  get: orgProcedure("svc:org:read")
    .input(z.strictObject({ org_id: id, include_deleted: z.boolean().optional() }))
    .query(({ ctx, input }) => getOrganization(ctx.actor, input.org_id, { includeDeleted: input.include_deleted })),

  create: consoleProcedure("svc:system:orgs:write")
    .input(createOrganizationInput)
    .mutation(({ ctx, input }) => createOrganization(ctx.actor, input)),

  /** The profile; tier and status are refused here (unknown fields). */
  update: orgProcedure("svc:org:write")
    .input(updateOrganizationInput.extend({ org_id: id }))
    .mutation(({ ctx, input: { org_id, ...profile } }) => updateOrganization(ctx.actor, org_id, profile)),

  /** Subscription tier and status: the platform's decision, not the tenant's. */
  updateSubscription: consoleProcedure("svc:system:orgs:write")
    .input(updateSubscriptionInput.extend({ org_id: id }))
    .mutation(({ ctx, input: { org_id, ...subscription } }) => updateOrganization(ctx.actor, org_id, subscription)),

  /** Soft delete. */
  delete: consoleProcedure("svc:system:orgs:delete")
    .input(z.strictObject({ org_id: id }))
    .mutation(({ ctx, input }) => deleteOrganization(ctx.actor, input.org_id)),

  restore: consoleProcedure("svc:system:orgs:write")
    .input(z.strictObject({ org_id: id }))
    .mutation(({ ctx, input }) => restoreOrganization(ctx.actor, input.org_id)),
});
