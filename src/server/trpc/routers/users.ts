import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { listUserOrganizationsQuery } from "@/lib/schemas/members";
import { createUserInput, findUsersInput, listUsersQuery, resetPasswordInput, updateUserInput } from "@/lib/schemas/users";
import { listUserOrganizations } from "@/server/services/memberships/service";
import { findUsers } from "@/server/services/users/directory";
import {
  createUser,
  deleteUser,
  getUser,
  listIdentities,
  listUsers,
  resetPassword,
  restoreUser,
  unlinkIdentity,
  updateUser,
} from "@/server/services/users/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// The console's users screens: the same services, schemas and permissions as the REST user routes
// (src/server/rest/routes/users.ts). A user's memberships are changed through `members`, their
// role grants through `roles`, their API keys are read through `apiKeys.list`.

/** The REST query as the console sends it: `include_deleted` a boolean; TanStack's `direction` dropped. */
const listInput = z.object({ ...listUsersQuery.shape, include_deleted: z.boolean().optional() });
const userInput = z.strictObject({ user_id: id });

export const usersRouter = createTRPCRouter({
  /** Users matching a search, for pickers. */
  find: consoleProcedure("svc:system:users:read")
    .input(findUsersInput)
    .query(({ ctx, input }) => findUsers(ctx.actor, input)),

  /** Search by username, display name or email, newest first; deleted ones on request. */
  list: consoleProcedure("svc:system:users:read")
    .input(listInput)
    .query(({ ctx, input }) => listUsers(ctx.actor, input)),

  /** One user; `include_deleted` lets a sys_admin open a deleted one (to restore it). */
  get: consoleProcedure("svc:system:users:read")
    .input(userInput.extend({ include_deleted: z.boolean().optional() }))
    .query(({ ctx, input }) => getUser(ctx.actor, input.user_id, { includeDeleted: input.include_deleted })),

  /** `password` null: an OAuth-only user. */
  create: consoleProcedure("svc:system:users:write")
    .input(createUserInput)
    .mutation(({ ctx, input }) => createUser(ctx.actor, input)),

  update: consoleProcedure("svc:system:users:write")
    .input(updateUserInput.extend({ user_id: id }))
    .mutation(({ ctx, input: { user_id, ...profile } }) => updateUser(ctx.actor, user_id, profile)),

  /** Sets the given password, or generates one returned in this answer only. */
  resetPassword: consoleProcedure("svc:system:users:write")
    .input(resetPasswordInput.extend({ user_id: id }))
    .mutation(({ ctx, input: { user_id, ...body } }) => resetPassword(ctx.actor, user_id, body)),

  /** Soft delete; the last sys_admin cannot be deleted (CONFLICT). */
  delete: consoleProcedure("svc:system:users:write")
    .input(userInput)
    .mutation(({ ctx, input }) => deleteUser(ctx.actor, input.user_id)),

  /** CONFLICT when another user has taken the username or email meanwhile. */
  restore: consoleProcedure("svc:system:users:write")
    .input(userInput)
    .mutation(({ ctx, input }) => restoreUser(ctx.actor, input.user_id)),

  /** The organizations the user belongs to, with their org roles there. */
  organizations: consoleProcedure("svc:system:users:read")
    .input(z.object({ ...listUserOrganizationsQuery.shape, user_id: id }))
    .query(({ ctx, input: { user_id, ...query } }) => listUserOrganizations(ctx.actor, user_id, query)),

  /** Linked OAuth identities. */
  identities: consoleProcedure("svc:system:users:read")
    .input(userInput)
    .query(({ ctx, input }) => listIdentities(ctx.actor, input.user_id)),

  unlinkIdentity: consoleProcedure("svc:system:users:write")
    .input(userInput.extend({ identity_id: id }))
    .mutation(({ ctx, input }) => unlinkIdentity(ctx.actor, input.user_id, input.identity_id)),
});
