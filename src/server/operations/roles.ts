import "server-only";
import {
  createRoleInput,
  effectivePermissionsSchema,
  grantListSchema,
  grantParams,
  grantRoleInput,
  grantSchema,
  listRolesQuery,
  MAX_ROLES,
  permissionCatalogSchema,
  roleIdParams,
  roleListSchema,
  roleSchema,
  updateRoleInput,
} from "@/lib/schemas/roles";
import { pageQuery } from "@/lib/schemas/common";
import { userIdParams } from "@/lib/schemas/users";
import { effectivePermissionsOf, grantRole, listGrants, revokeGrant } from "@/server/services/roles/grants";
import {
  createRole,
  deleteRole,
  getRole,
  listRoles,
  permissionCatalog,
  restoreRole,
  updateRole,
} from "@/server/services/roles/service";
import { defineOperation } from "./operation";
import { softDeletable } from "./soft-delete";

// Roles, the permission catalog, grants of roles to users and effective permissions. Writes need
// svc:system:roles:write (dangerous: console sessions only) and obey the no-escalation rule.

const tag = "Roles and permissions";
const ROLES = "/api/v1/roles";
const USER = "/api/v1/users/{user_id}";
const read = { permission: "svc:system:roles:read" } as const;
const write = { permission: "svc:system:roles:write" } as const;
const NO_ESCALATION = "A non-sys_admin must hold every permission involved (403 `scope_not_held`).";

export const roleOperations = {
  catalog: defineOperation({
    id: "listPermissions",
    method: "GET",
    path: "/api/v1/permissions",
    tag,
    summary: "The permission catalog",
    description:
      "Every known permission: its scope (system or org), whether it is dangerous (never reaches an API key) and what it allows. Roles may hold only these.",
    access: read,
    response: permissionCatalogSchema,
    handler: () => permissionCatalog(),
  }),
  list: defineOperation({
    id: "listRoles",
    method: "GET",
    path: ROLES,
    tag,
    summary: "List roles",
    access: read,
    query: listRolesQuery,
    response: roleListSchema,
    handler: ({ query, ...ctx }) => listRoles(ctx, query),
  }),
  create: defineOperation({
    id: "createRole",
    method: "POST",
    path: ROLES,
    tag,
    summary: "Create a custom role",
    description: `Permissions must be catalog permissions (400 \`validation_failed\`); an org role holds org permissions only. The platform holds at most ${MAX_ROLES.toLocaleString("en")} roles (403 \`quota_exceeded\`). ${NO_ESCALATION}`,
    access: write,
    body: createRoleInput,
    response: roleSchema,
    created: (role) => role.id,
    errors: ["conflict", "scope_not_held", "quota_exceeded"],
    handler: ({ body, ...ctx }) => createRole(ctx, body),
  }),
  update: defineOperation({
    id: "updateRole",
    method: "PATCH",
    path: `${ROLES}/{role_id}`,
    tag,
    summary: "Rename a role or change its permissions",
    description: `\`permissions\` replaces the whole set; API keys of the role's holders follow at their next request. The scope never changes; built-in roles keep their name and permissions (400 \`immutable_field\`). ${NO_ESCALATION}`,
    access: write,
    params: roleIdParams,
    body: updateRoleInput,
    response: roleSchema,
    errors: ["not_found", "conflict", "immutable_field", "scope_not_held"],
    handler: ({ params, body, ...ctx }) => updateRole(ctx, params.role_id, body),
  }),
  grants: defineOperation({
    id: "listUserGrants",
    method: "GET",
    path: `${USER}/roles`,
    tag,
    summary: "A user's role grants",
    description: "Global grants (`org_id` null) and grants in organizations.",
    access: read,
    params: userIdParams,
    query: pageQuery,
    response: grantListSchema,
    errors: ["not_found"],
    handler: ({ params, query, ...ctx }) => listGrants(ctx, params.user_id, query),
  }),
  grant: defineOperation({
    id: "grantRole",
    method: "POST",
    path: `${USER}/roles`,
    tag,
    summary: "Grant a role to a user",
    description: `A system role globally (\`org_id\` null); an org role in one organization the user belongs to (409 \`conflict\` otherwise, and when already granted). ${NO_ESCALATION}`,
    access: write,
    params: userIdParams,
    body: grantRoleInput,
    response: grantSchema,
    created: (grant) => String(grant.id),
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ params, body, ...ctx }) => grantRole(ctx, params.user_id, body),
  }),
  revoke: defineOperation({
    id: "revokeGrant",
    method: "DELETE",
    path: `${USER}/roles/{grant_id}`,
    tag,
    summary: "Revoke a role grant",
    description: `Answers the removed grant. The last sys_admin keeps the role (409 \`conflict\`). ${NO_ESCALATION}`,
    access: write,
    params: grantParams,
    response: grantSchema,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ params, ...ctx }) => revokeGrant(ctx, params.user_id, params.grant_id),
  }),
  effective: defineOperation({
    id: "getEffectivePermissions",
    method: "GET",
    path: `${USER}/effective-permissions`,
    tag,
    summary: "What a user may do",
    description: "Globally and in each organization the user belongs to, with the roles each permission comes from.",
    access: read,
    params: userIdParams,
    response: effectivePermissionsSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => effectivePermissionsOf(ctx, params.user_id),
  }),
  ...softDeletable({
    name: "Role",
    noun: "a role",
    path: `${ROLES}/{role_id}`,
    tag,
    params: roleIdParams,
    response: roleSchema,
    access: { read, delete: write, restore: write },
    notes: {
      delete: `Its grants stop counting at once. Built-in roles cannot be deleted (409 \`conflict\`). ${NO_ESCALATION}`,
      restore: `Its grants count again at once. ${NO_ESCALATION}`,
    },
    errors: { delete: ["conflict", "scope_not_held"], restore: ["scope_not_held", "quota_exceeded"] },
    get: (ctx, p, options) => getRole(ctx, p.role_id, options),
    delete: (ctx, p) => deleteRole(ctx, p.role_id),
    restore: (ctx, p) => restoreRole(ctx, p.role_id),
  }),
};
