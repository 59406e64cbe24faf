import { z } from "zod";
import { ALL_PERMISSIONS } from "@/lib/permissions";
import {
  DESCRIPTION_LENGTH,
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  LENGTH,
  list,
  listOf,
  pageQuery,
  searchTerm,
  softDeletedRecord,
  text,
  moment,
} from "./common";
import { MAX_ORGANIZATIONS_PER_USER } from "./organizations";

// Roles, grants of roles to users and the effective-permissions view.
// Permissions are checked against the catalog by the service (any string is let through here, so
// that an unknown one is named in the error rather than refused as a type error).

export const ROLE_SCOPES = ["system", "org"] as const;
/** The most roles the platform holds (built-in ones included): what a user can hold in one place. */
export const MAX_ROLES = 1_000;
/** A role's permissions, or anyone's: at most the whole catalog. */
const permissions = list(text(), ALL_PERMISSIONS.length);

const roleName = text()
  .trim()
  .min(1, "must not be empty")
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9 _.-]*$/,
    "may hold letters, digits, spaces, '.', '_' and '-', starting with a letter or digit",
  );

const permissionList = list(text()).refine(
  (list) => new Set(list).size === list.length,
  "must not repeat a permission",
);

export const createRoleInput = z
  .strictObject({
    name: roleName,
    description: text(DESCRIPTION_LENGTH).nullable().optional(),
    scope: z
      .enum(ROLE_SCOPES)
      .describe("system: granted globally; org: granted in one organization (org permissions only)."),
    permissions: permissionList.default([]).describe("Catalog permissions (GET /api/v1/permissions)."),
  })
  .meta({
    examples: [
      {
        name: "support-lead",
        description: "Runs the support assistants.",
        scope: "org",
        permissions: ["svc:orchestrators:write", "svc:conversations:manage"],
      },
    ],
  });
export type CreateRoleInput = z.output<typeof createRoleInput>;

export const updateRoleInput = z
  .strictObject({
    name: roleName.optional().describe("Built-in roles cannot be renamed (400 immutable_field)."),
    description: text(DESCRIPTION_LENGTH).nullable().optional(),
    scope: text(LENGTH.SHORT).optional().describe("Immutable: a different value answers 400 immutable_field."),
    permissions: permissionList
      .optional()
      .describe("The whole new set. Built-in roles' sets follow the catalog and cannot change."),
  })
  .meta({ examples: [{ permissions: ["svc:orchestrators:read", "svc:conversations:manage"] }] });
export type UpdateRoleInput = z.output<typeof updateRoleInput>;

export const listRolesQuery = pageQuery.extend({
  scope: z.enum(ROLE_SCOPES).optional(),
  q: searchTerm("Matches the name."),
  include_deleted: includeDeleted,
});
export type ListRolesQuery = z.output<typeof listRolesQuery>;

export const roleIdParams = z.strictObject({ role_id: id });

export const roleSchema = z
  .object({
    id: z.uuid(),
    name: text(),
    description: text(DESCRIPTION_LENGTH).nullable(),
    scope: z.enum(ROLE_SCOPES),
    is_built_in: z.boolean(),
    permissions,
    ...softDeletedRecord,
  })
  .meta({
    id: "Role",
    examples: [
      {
        id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b",
        name: "support-lead",
        description: "Runs the support assistants.",
        scope: "org",
        is_built_in: false,
        permissions: ["svc:orchestrators:write", "svc:conversations:manage"],
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type Role = z.input<typeof roleSchema>;
export const roleListSchema = listOf(roleSchema);

const permissionInfoSchema = z
  .object({
    permission: text(),
    scope: z.enum(ROLE_SCOPES),
    dangerous: z.boolean().describe("Never reaches an API key session."),
    allows: text(),
  })
  .meta({
    id: "PermissionInfo",
    examples: [
      {
        permission: "svc:orchestrators:read",
        scope: "org",
        dangerous: false,
        allows: "read orchestrator instances and effective config",
      },
    ],
  });
export const permissionCatalogSchema = z.object({ data: list(permissionInfoSchema, ALL_PERMISSIONS.length) });

// Grants -------------------------------------------------------------------------------------

/** Grants are rows of the user_roles join table, numbered by the database (a 32-bit integer). */
const GRANT_ID_MAX = 2_147_483_647;
const grantId = z.number().int().min(1).max(GRANT_ID_MAX);

export const grantRoleInput = z.strictObject({
  role_id: id,
  org_id: id
    .nullable()
    .default(null)
    .describe("null for a system role (granted globally); the organization for an org role."),
});
export type GrantRoleInput = z.output<typeof grantRoleInput>;

/** Inside one organization (the org admin's route): only org roles, in that organization. */
export const grantOrgRoleInput = z.strictObject({ role_id: id });
export type GrantOrgRoleInput = z.output<typeof grantOrgRoleInput>;

export const grantParams = z.strictObject({
  user_id: id,
  // Out of range answers as every other bound does; only what is no number at all is "not a grant id".
  grant_id: z.coerce
    .number({ error: (issue) => (issue.code === "invalid_type" ? "must be a grant id" : undefined) })
    .int()
    .min(1)
    .max(GRANT_ID_MAX),
});
export const memberRoleParams = z.strictObject({ org_id: id, user_id: id, role_id: id });

export const grantSchema = z
  .object({
    id: grantId,
    user_id: z.uuid(),
    role: z.object({ id: z.uuid(), name: text(), scope: z.enum(ROLE_SCOPES), is_built_in: z.boolean() }),
    org_id: z.uuid().nullable(),
    org_name: text().nullable(),
    created_at: moment,
  })
  .meta({
    id: "Grant",
    examples: [
      {
        id: 7,
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        role: { id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b", name: "support-lead", scope: "org", is_built_in: false },
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        org_name: "acme",
        created_at: "2026-01-15T09:30:00.000Z",
      },
    ],
  });
export type Grant = z.input<typeof grantSchema>;
export const grantListSchema = listOf(grantSchema);

// Effective permissions ----------------------------------------------------------------------

const sourceSchema = z.object({
  role_id: z.uuid(),
  role_name: text(),
  org_id: z.uuid().nullable().describe("null: granted globally."),
});
const heldPermissionSchema = z
  .object({
    permission: text(),
    dangerous: z.boolean(),
    sources: list(sourceSchema, MAX_ROLES).describe("The roles this permission comes from."),
  })
  .meta({
    id: "HeldPermission",
    examples: [
      {
        permission: "svc:conversations:manage",
        dangerous: false,
        sources: [
          {
            role_id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b",
            role_name: "support-lead",
            org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
          },
        ],
      },
    ],
  });
export type HeldPermission = z.input<typeof heldPermissionSchema>;

export const effectivePermissionsSchema = z.object({
  user_id: z.uuid(),
  is_sys_admin: z.boolean(),
  global: list(heldPermissionSchema, ALL_PERMISSIONS.length).describe("Held everywhere."),
  organizations: list(
    z
      .object({ id: z.uuid(), name: text(), permissions: list(heldPermissionSchema, ALL_PERMISSIONS.length) })
      .describe("Held in one organization the user belongs to (global ones included)."),
    MAX_ORGANIZATIONS_PER_USER,
  ),
});
export type EffectivePermissionsView = z.input<typeof effectivePermissionsSchema>;
