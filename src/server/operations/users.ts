import "server-only";
import { pageQuery } from "@/lib/schemas/common";
import { listUserOrganizationsQuery, userOrganizationListSchema } from "@/lib/schemas/members";
import {
  createUserInput,
  identityListSchema,
  identityParams,
  identitySchema,
  listUsersQuery,
  passwordResetSchema,
  resetPasswordInput,
  updateUserInput,
  userIdParams,
  userListSchema,
  userSchema,
} from "@/lib/schemas/users";
import { twoFactorStatusSchema } from "@/lib/schemas/two-factor";
import { listUserOrganizations } from "@/server/services/memberships/service";
import { resetTwoFactor, userTwoFactor } from "@/server/services/two-factor/service";
import {
  createUser,
  deleteUser,
  getUser,
  listIdentities,
  markEmailVerified,
  listUsers,
  resetPassword,
  restoreUser,
  unlinkIdentity,
  updateUser,
} from "@/server/services/users/service";
import { defineOperation } from "./operation";
import { softDeletable } from "./soft-delete";

// Users, their organizations and their linked OAuth identities. Writes need svc:system:users:write,
// which is dangerous: API keys read users, only a signed-in console session changes them.

const BASE = "/api/v1/users";
const ONE = `${BASE}/{user_id}`;
const tag = "Users";
const read = { permission: "svc:system:users:read" } as const;
const write = { permission: "svc:system:users:write" } as const;

export const userOperations = {
  list: defineOperation({
    id: "listUsers",
    method: "GET",
    path: BASE,
    tag,
    summary: "List and search users",
    description:
      "Newest first. `q` matches username, display name or email; sys_admins may pass `include_deleted=true`.",
    access: read,
    query: listUsersQuery,
    response: userListSchema,
    handler: ({ query, ...ctx }) => listUsers(ctx, query),
  }),
  create: defineOperation({
    id: "createUser",
    method: "POST",
    path: BASE,
    tag,
    summary: "Create a user",
    description:
      "username is unique among non-deleted users, email among non-deleted users that have one (409 `conflict` naming the field). `password` null or absent: an OAuth-only user.",
    access: write,
    body: createUserInput,
    response: userSchema,
    created: (user) => user.id,
    errors: ["conflict"],
    handler: ({ body, ...ctx }) => createUser(ctx, body),
  }),
  update: defineOperation({
    id: "updateUser",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Update a user's profile",
    description: "Passwords change through `POST /api/v1/users/{user_id}/password`.",
    access: write,
    params: userIdParams,
    body: updateUserInput,
    response: userSchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, body, ...ctx }) => updateUser(ctx, params.user_id, body),
  }),
  markEmailVerified: defineOperation({
    id: "markUserEmailVerified",
    method: "POST",
    path: `${ONE}/email/verified`,
    tag,
    summary: "Mark a user's email verified",
    description:
      "A sys_admin's word that the user's current email is theirs: sets `email_verified_at` (unchanged when already set). Audited. 409 `conflict` when the user has no email; one's own email is verified with a link (`POST /api/v1/me/email/verify`), 403 here. A later change of email clears it.",
    access: { ...write, sysAdmin: true },
    params: userIdParams,
    response: userSchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, ...ctx }) => markEmailVerified(ctx, params.user_id),
  }),
  resetPassword: defineOperation({
    id: "resetUserPassword",
    method: "POST",
    path: `${ONE}/password`,
    tag,
    summary: "Reset a user's password",
    description: "Sets the given `password`, or generates one and returns it in `password`, once.",
    access: write,
    params: userIdParams,
    body: resetPasswordInput,
    response: passwordResetSchema,
    secret: true,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => resetPassword(ctx, params.user_id, body),
  }),
  twoFactor: defineOperation({
    id: "getUserTwoFactor",
    method: "GET",
    path: `${ONE}/two-factor`,
    tag,
    summary: "Whether a user signs in with two-factor authentication",
    access: read,
    params: userIdParams,
    response: twoFactorStatusSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => userTwoFactor(ctx, params.user_id),
  }),
  resetTwoFactor: defineOperation({
    id: "resetUserTwoFactor",
    method: "DELETE",
    path: `${ONE}/two-factor`,
    tag,
    summary: "Reset a user's two-factor authentication",
    description:
      "Turns it off and drops the recovery codes, for a user who lost both; the user sets it up again. The rule of credentials applies (403 `forbidden` unless the caller holds everything the user holds; a sys_admin's only by a sys_admin). One's own is turned off from one's account, with password and code (403 here).",
    access: write,
    params: userIdParams,
    response: twoFactorStatusSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => resetTwoFactor(ctx, params.user_id),
  }),
  organizations: defineOperation({
    id: "listUserOrganizations",
    method: "GET",
    path: `${ONE}/organizations`,
    tag,
    summary: "A user's organizations",
    description: "The organizations the user belongs to, with the org roles granted there.",
    access: read,
    params: userIdParams,
    query: listUserOrganizationsQuery,
    response: userOrganizationListSchema,
    errors: ["not_found"],
    handler: ({ params, query, ...ctx }) => listUserOrganizations(ctx, params.user_id, query),
  }),
  identities: defineOperation({
    id: "listUserIdentities",
    method: "GET",
    path: `${ONE}/identities`,
    tag,
    summary: "A user's linked OAuth identities",
    access: read,
    params: userIdParams,
    query: pageQuery,
    response: identityListSchema,
    errors: ["not_found"],
    handler: ({ params, query, ...ctx }) => listIdentities(ctx, params.user_id, query),
  }),
  unlinkIdentity: defineOperation({
    id: "unlinkUserIdentity",
    method: "DELETE",
    path: `${ONE}/identities/{identity_id}`,
    tag,
    summary: "Unlink an OAuth identity",
    description: "Signing in with that external account no longer reaches the user. Answers the removed link.",
    access: write,
    params: identityParams,
    response: identitySchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => unlinkIdentity(ctx, params.user_id, params.identity_id),
  }),
  ...softDeletable({
    name: "User",
    noun: "a user",
    path: ONE,
    tag,
    params: userIdParams,
    response: userSchema,
    access: { read, delete: write, restore: write },
    notes: {
      delete:
        "The user's API keys stop working at once and console sessions end; a service account's keys are revoked, so a restore does not bring them back. The last sys_admin cannot be deleted (409 `conflict`).",
      restore: "409 `conflict` when another user has taken the username or email meanwhile.",
    },
    errors: { delete: ["conflict"], restore: ["conflict"] },
    get: (ctx, p, options) => getUser(ctx, p.user_id, options),
    delete: (ctx, p) => deleteUser(ctx, p.user_id),
    restore: (ctx, p) => restoreUser(ctx, p.user_id),
  }),
};
