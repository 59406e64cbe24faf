import {
  createRoleInput,
  effectivePermissionsSchema,
  grantListSchema,
  grantParams,
  grantRoleInput,
  grantSchema,
  listRolesQuery,
  permissionCatalogSchema,
  roleIdParams,
  roleListSchema,
  roleSchema,
  updateRoleInput,
} from "@/lib/schemas/roles";
import { includeDeletedQuery, userIdParams } from "@/lib/schemas/users";
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
import { defineRoute, RouteResult } from "../route";

// Roles, the permission catalog, grants of roles to users and effective permissions. Writes need
// svc:system:roles:write (dangerous: console sessions only) and obey the no-escalation rule.

const tag = "Roles and permissions";
const ROLES = "/api/v1/roles";
const USER = "/api/v1/users/{user_id}";

const NO_ESCALATION = "A non-sys_admin must hold every permission involved (403 `scope_not_held`).";

export const roleRoutes = [
  defineRoute({
    method: "GET", path: "/api/v1/permissions", operationId: "listPermissions", tag,
    summary: "The permission catalog",
    description: "Every known permission: its scope (system or org), whether it is dangerous (never reaches an API key) and what it allows. Roles may hold only these.",
    access: { permission: "svc:system:roles:read" },
    response: permissionCatalogSchema,
    handler: async () => permissionCatalog(),
  }),
  defineRoute({
    method: "GET", path: ROLES, operationId: "listRoles", tag,
    summary: "List roles",
    access: { permission: "svc:system:roles:read" },
    query: listRolesQuery,
    response: roleListSchema,
    handler: ({ actor, query }) => listRoles(actor, query),
  }),
  defineRoute({
    method: "POST", path: ROLES, operationId: "createRole", tag,
    summary: "Create a custom role",
    description: `Permissions must be catalog permissions (400 \`validation_failed\`); an org role holds org permissions only. ${NO_ESCALATION}`,
    access: { permission: "svc:system:roles:write" },
    body: createRoleInput,
    response: roleSchema,
    status: 201,
    errors: ["conflict", "scope_not_held"],
    handler: async ({ actor, body }) => {
      const role = await createRole(actor, body);
      return new RouteResult(role, { status: 201, headers: { Location: `${ROLES}/${role.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: `${ROLES}/{role_id}`, operationId: "getRole", tag,
    summary: "Read a role",
    access: { permission: "svc:system:roles:read" },
    params: roleIdParams,
    query: includeDeletedQuery,
    response: roleSchema,
    errors: ["not_found"],
    handler: ({ actor, params, query }) => getRole(actor, params.role_id, { includeDeleted: query.include_deleted }),
  }),
  defineRoute({
    method: "PATCH", path: `${ROLES}/{role_id}`, operationId: "updateRole", tag,
    summary: "Rename a role or change its permissions",
    description: `\`permissions\` replaces the whole set; API keys of the role's holders follow at their next request. The scope never changes; built-in roles keep their name and permissions (400 \`immutable_field\`). ${NO_ESCALATION}`,
    access: { permission: "svc:system:roles:write" },
    params: roleIdParams,
    body: updateRoleInput,
    response: roleSchema,
    errors: ["not_found", "conflict", "immutable_field", "scope_not_held"],
    handler: ({ actor, params, body }) => updateRole(actor, params.role_id, body),
  }),
  defineRoute({
    method: "DELETE", path: `${ROLES}/{role_id}`, operationId: "deleteRole", tag,
    summary: "Delete a custom role (soft)",
    description: `Its grants stop counting at once. Built-in roles cannot be deleted (409 \`conflict\`). ${NO_ESCALATION}`,
    access: { permission: "svc:system:roles:write" },
    params: roleIdParams,
    response: roleSchema,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ actor, params }) => deleteRole(actor, params.role_id),
  }),
  defineRoute({
    method: "GET", path: `${USER}/roles`, operationId: "listUserGrants", tag,
    summary: "A user's role grants",
    description: "Global grants (`org_id` null) and grants in organizations.",
    access: { permission: "svc:system:roles:read" },
    params: userIdParams,
    response: grantListSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => listGrants(actor, params.user_id),
  }),
  defineRoute({
    method: "POST", path: `${USER}/roles`, operationId: "grantRole", tag,
    summary: "Grant a role to a user",
    description: `A system role globally (\`org_id\` null); an org role in one organization the user belongs to (409 \`conflict\` otherwise, and when already granted). ${NO_ESCALATION}`,
    access: { permission: "svc:system:roles:write" },
    params: userIdParams,
    body: grantRoleInput,
    response: grantSchema,
    status: 201,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: async ({ actor, params, body }) => {
      const grant = await grantRole(actor, params.user_id, body);
      return new RouteResult(grant, { status: 201, headers: { Location: `/api/v1/users/${params.user_id}/roles/${grant.id}` } });
    },
  }),
  defineRoute({
    method: "DELETE", path: `${USER}/roles/{grant_id}`, operationId: "revokeGrant", tag,
    summary: "Revoke a role grant",
    description: `Answers the removed grant. The last sys_admin keeps the role (409 \`conflict\`). ${NO_ESCALATION}`,
    access: { permission: "svc:system:roles:write" },
    params: grantParams,
    response: grantSchema,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ actor, params }) => revokeGrant(actor, params.user_id, params.grant_id),
  }),
  defineRoute({
    method: "GET", path: `${USER}/effective-permissions`, operationId: "getEffectivePermissions", tag,
    summary: "What a user may do",
    description: "Globally and in each organization the user belongs to, with the roles each permission comes from.",
    access: { permission: "svc:system:roles:read" },
    params: userIdParams,
    response: effectivePermissionsSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => effectivePermissionsOf(actor, params.user_id),
  }),
];
