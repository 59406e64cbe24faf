import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { createRoleInput, grantParams, grantRoleInput, listRolesQuery, updateRoleInput } from "@/lib/schemas/roles";
import {
  createRole,
  deleteRole,
  effectivePermissionsOf,
  getRole,
  grantRole,
  listGrants,
  listRoles,
  permissionCatalog,
  revokeGrant,
  updateRole,
} from "@/server/services/roles/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// The console's roles screens and a user's role grants: the same services, schemas and
// permissions as the REST routes (src/server/rest/routes/roles.ts). The services keep the rules —
// catalog permissions only, built-in roles fixed, no escalation, the last sys_admin kept.

/** The REST query as the console sends it: `include_deleted` a boolean; TanStack's `direction` dropped. */
const listInput = z.object({ ...listRolesQuery.shape, include_deleted: z.boolean().optional() });
const roleInput = z.strictObject({ role_id: id });
const userInput = z.strictObject({ user_id: id });

export const rolesRouter = createTRPCRouter({
  /** Every permission a role may hold, with its scope, dangerous flag and meaning. */
  catalog: consoleProcedure("svc:system:roles:read").query(() => permissionCatalog()),

  list: consoleProcedure("svc:system:roles:read")
    .input(listInput)
    .query(({ ctx, input }) => listRoles(ctx.actor, input)),

  get: consoleProcedure("svc:system:roles:read")
    .input(roleInput.extend({ include_deleted: z.boolean().optional() }))
    .query(({ ctx, input }) => getRole(ctx.actor, input.role_id, { includeDeleted: input.include_deleted })),

  create: consoleProcedure("svc:system:roles:write")
    .input(createRoleInput)
    .mutation(({ ctx, input }) => createRole(ctx.actor, input)),

  /** `permissions` replaces the whole set; built-in roles keep their name and permissions. */
  update: consoleProcedure("svc:system:roles:write")
    .input(updateRoleInput.extend({ role_id: id }))
    .mutation(({ ctx, input: { role_id, ...changes } }) => updateRole(ctx.actor, role_id, changes)),

  /** Soft delete; built-in roles cannot be deleted (CONFLICT). */
  delete: consoleProcedure("svc:system:roles:write")
    .input(roleInput)
    .mutation(({ ctx, input }) => deleteRole(ctx.actor, input.role_id)),

  /** A user's grants, global and per organization. */
  grants: consoleProcedure("svc:system:roles:read")
    .input(userInput)
    .query(({ ctx, input }) => listGrants(ctx.actor, input.user_id)),

  /** A system role globally (`org_id` null), an org role in one organization the user belongs to. */
  grant: consoleProcedure("svc:system:roles:write")
    .input(grantRoleInput.extend({ user_id: id }))
    .mutation(({ ctx, input: { user_id, ...body } }) => grantRole(ctx.actor, user_id, body)),

  /** The last sys_admin keeps the role (CONFLICT). */
  revoke: consoleProcedure("svc:system:roles:write")
    .input(grantParams)
    .mutation(({ ctx, input }) => revokeGrant(ctx.actor, input.user_id, input.grant_id)),

  /** What the user may do, globally and per organization, with the roles each permission comes from. */
  effective: consoleProcedure("svc:system:roles:read")
    .input(userInput)
    .query(({ ctx, input }) => effectivePermissionsOf(ctx.actor, input.user_id)),
});
