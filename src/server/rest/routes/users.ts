import {
  createUserInput,
  identityListSchema,
  identityParams,
  identitySchema,
  includeDeletedQuery,
  listUsersQuery,
  passwordResetSchema,
  resetPasswordInput,
  updateUserInput,
  userIdParams,
  userListSchema,
  userSchema,
} from "@/lib/schemas/users";
import { listUserOrganizationsQuery, userOrganizationListSchema } from "@/lib/schemas/members";
import { listUserOrganizations } from "@/server/services/memberships/service";
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
import { defineRoute, RouteResult } from "../route";

// Users, their organizations and their linked OAuth identities. Writes need svc:system:users:write,
// which is dangerous: API keys read users, only a signed-in console session changes them.

const BASE = "/api/v1/users";
const ONE = `${BASE}/{user_id}`;
const tag = "Users";

export const userRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listUsers", tag,
    summary: "List and search users",
    description: "Newest first. `q` matches username, display name or email; sys_admins may pass `include_deleted=true`.",
    access: { permission: "svc:system:users:read" },
    query: listUsersQuery,
    response: userListSchema,
    handler: ({ actor, query }) => listUsers(actor, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createUser", tag,
    summary: "Create a user",
    description: "username is unique among non-deleted users, email among non-deleted users that have one (409 `conflict` naming the field). `password` null or absent: an OAuth-only user.",
    access: { permission: "svc:system:users:write" },
    body: createUserInput,
    response: userSchema,
    status: 201,
    errors: ["conflict"],
    handler: async ({ actor, body }) => {
      const user = await createUser(actor, body);
      return new RouteResult(user, { status: 201, headers: { Location: `${BASE}/${user.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getUser", tag,
    summary: "Read a user",
    description: "sys_admins may pass `include_deleted=true` to read a deleted one.",
    access: { permission: "svc:system:users:read" },
    params: userIdParams,
    query: includeDeletedQuery,
    response: userSchema,
    errors: ["not_found"],
    handler: ({ actor, params, query }) => getUser(actor, params.user_id, { includeDeleted: query.include_deleted }),
  }),
  defineRoute({
    method: "PATCH", path: ONE, operationId: "updateUser", tag,
    summary: "Update a user's profile",
    description: "Passwords change through `POST /api/v1/users/{user_id}/password`.",
    access: { permission: "svc:system:users:write" },
    params: userIdParams,
    body: updateUserInput,
    response: userSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params, body }) => updateUser(actor, params.user_id, body),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "deleteUser", tag,
    summary: "Delete a user (soft)",
    description: "The user's API keys stop working at once and console sessions end. The last sys_admin cannot be deleted (409 `conflict`).",
    access: { permission: "svc:system:users:write" },
    params: userIdParams,
    response: userSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => deleteUser(actor, params.user_id),
  }),
  defineRoute({
    method: "POST", path: `${ONE}/restore`, operationId: "restoreUser", tag,
    summary: "Restore a deleted user",
    description: "409 `conflict` when another user has taken the username or email meanwhile.",
    access: { permission: "svc:system:users:write", sysAdmin: true },
    params: userIdParams,
    response: userSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => restoreUser(actor, params.user_id),
  }),
  defineRoute({
    method: "POST", path: `${ONE}/password`, operationId: "resetUserPassword", tag,
    summary: "Reset a user's password",
    description: "Sets the given `password`, or generates one and returns it in `password`, once.",
    access: { permission: "svc:system:users:write" },
    params: userIdParams,
    body: resetPasswordInput,
    response: passwordResetSchema,
    secret: true,
    errors: ["not_found"],
    handler: ({ actor, params, body }) => resetPassword(actor, params.user_id, body),
  }),
  defineRoute({
    method: "GET", path: `${ONE}/organizations`, operationId: "listUserOrganizations", tag,
    summary: "A user's organizations",
    description: "The organizations the user belongs to, with the org roles granted there.",
    access: { permission: "svc:system:users:read" },
    params: userIdParams,
    query: listUserOrganizationsQuery,
    response: userOrganizationListSchema,
    errors: ["not_found"],
    handler: ({ actor, params, query }) => listUserOrganizations(actor, params.user_id, query),
  }),
  defineRoute({
    method: "GET", path: `${ONE}/identities`, operationId: "listUserIdentities", tag,
    summary: "A user's linked OAuth identities",
    access: { permission: "svc:system:users:read" },
    params: userIdParams,
    response: identityListSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => listIdentities(actor, params.user_id),
  }),
  defineRoute({
    method: "DELETE", path: `${ONE}/identities/{identity_id}`, operationId: "unlinkUserIdentity", tag,
    summary: "Unlink an OAuth identity",
    description: "Signing in with that external account no longer reaches the user. Answers the removed link.",
    access: { permission: "svc:system:users:write" },
    params: identityParams,
    response: identitySchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => unlinkIdentity(actor, params.user_id, params.identity_id),
  }),
];
