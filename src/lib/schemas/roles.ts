import { z } from "zod";
import { EXAMPLE_LIVE_RECORD, id, includeDeleted, listOf, pageQuery, softDeletedRecord, timestamp } from "./common";

// Roles, grants of roles to users and the effective-permissions view.
// Permissions are checked against the catalog by the service (any string is let through here, so
// that an unknown one is named in the error rather than refused as a type error).

export const ROLE_SCOPES = ["system", "org"] as const;

const roleName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(255)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9 _.-]*$/,
    "may hold letters, digits, spaces, '.', '_' and '-', starting with a letter or digit",
  );

const permissionList = z
  .array(z.string().max(255))
  .max(100)
  .refine((list) => new Set(list).size === list.length, "must not repeat a permission");

export const createRoleInput = z
  .strictObject({
    name: roleName,
    description: z.string().max(10_000).nullable().optional(),
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
    description: z.string().max(10_000).nullable().optional(),
    scope: z.string().optional().describe("Immutable: a different value answers 400 immutable_field."),
    permissions: permissionList
      .optional()
      .describe("The whole new set. Built-in roles' sets follow the catalog and cannot change."),
  })
  .meta({ examples: [{ permissions: ["svc:orchestrators:read", "svc:conversations:manage"] }] });
export type UpdateRoleInput = z.output<typeof updateRoleInput>;

export const listRolesQuery = pageQuery.extend({
  scope: z.enum(ROLE_SCOPES).optional(),
  q: z.string().trim().min(1).max(255).optional().describe("Matches the name."),
  include_deleted: includeDeleted,
});
export type ListRolesQuery = z.output<typeof listRolesQuery>;

export const roleIdParams = z.strictObject({ role_id: id });

export const roleSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    scope: z.enum(ROLE_SCOPES),
    is_built_in: z.boolean(),
    permissions: z.array(z.string()),
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
export type Role = z.infer<typeof roleSchema>;
export const roleListSchema = listOf(roleSchema);

export const permissionInfoSchema = z
  .object({
    permission: z.string(),
    scope: z.enum(ROLE_SCOPES),
    dangerous: z.boolean().describe("Never reaches an API key session."),
    allows: z.string(),
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
export const permissionCatalogSchema = z.object({ data: z.array(permissionInfoSchema) });

// Grants -------------------------------------------------------------------------------------

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
  grant_id: z.coerce.number({ error: "must be a grant id" }).int().min(1).max(2_147_483_647),
});
export const memberRoleParams = z.strictObject({ org_id: id, user_id: id, role_id: id });

export const grantSchema = z
  .object({
    id: z.number().int(),
    user_id: z.uuid(),
    role: z.object({ id: z.uuid(), name: z.string(), scope: z.enum(ROLE_SCOPES), is_built_in: z.boolean() }),
    org_id: z.uuid().nullable(),
    org_name: z.string().nullable(),
    created_at: timestamp,
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
export type Grant = z.infer<typeof grantSchema>;
export const grantListSchema = listOf(grantSchema);

// Effective permissions ----------------------------------------------------------------------

const sourceSchema = z.object({
  role_id: z.uuid(),
  role_name: z.string(),
  org_id: z.uuid().nullable().describe("null: granted globally."),
});
const heldPermissionSchema = z
  .object({
    permission: z.string(),
    dangerous: z.boolean(),
    sources: z.array(sourceSchema).describe("The roles this permission comes from."),
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
export type HeldPermission = z.infer<typeof heldPermissionSchema>;

export const effectivePermissionsSchema = z.object({
  user_id: z.uuid(),
  is_sys_admin: z.boolean(),
  global: z.array(heldPermissionSchema).describe("Held everywhere."),
  organizations: z.array(
    z
      .object({ id: z.uuid(), name: z.string(), permissions: z.array(heldPermissionSchema) })
      .describe("Held in one organization the user belongs to (global ones included)."),
  ),
});
export type EffectivePermissionsView = z.infer<typeof effectivePermissionsSchema>;
