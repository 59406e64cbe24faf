import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import { requireHeldByActor } from "@/server/auth/escalation";
import { ALL_PERMISSIONS, isPermission, PERMISSIONS, type Permission } from "@/lib/permissions";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { withAccessChange } from "@/server/services/access-changes";
import { newestFirst, paginate } from "@/server/services/pagination";
import { requireBelowPlatformLimit } from "@/server/services/quotas";
import {
  MAX_ROLES,
  type CreateRoleInput,
  type ListRolesQuery,
  type roleSchema,
  type UpdateRoleInput,
} from "@/lib/schemas/roles";
import { containing } from "@/server/services/search";

// Roles and their permissions; granting them to users is grants.ts. Routes declare who may call
// what (svc:system:roles:*); this module keeps the rules of the data:
// - a permission must be in the catalog; an org role holds only org permissions;
// - built-in roles cannot be deleted or renamed, and their permission sets follow the catalog;
// - no escalation: requireHeldByActor (src/server/auth/escalation.ts);
// - a change of a role's permissions is announced, so API keys follow it at their next request.

export const ROLE_INCLUDE = { permissions: { select: { permission: true }, orderBy: { id: "asc" } } } as const;
type RoleRow = Prisma.RoleGetPayload<{ include: typeof ROLE_INCLUDE }>;
type Role = z.output<typeof roleSchema>;

// A mapper: a role's permissions are rows of their own, answered as a list of names.
function toRole(row: RoleRow): Role {
  return { ...row, scope: row.scope as Role["scope"], permissions: row.permissions.map((p) => p.permission) };
}

/** Catalog permissions only; an org role only org-scoped ones. */
function checkPermissions(scope: string, list: readonly string[]): Permission[] {
  const errors = list.flatMap((p, i) =>
    !isPermission(p)
      ? [{ path: `permissions.${i}`, message: `${p} is not a known permission` }]
      : scope === "org" && PERMISSIONS[p].scope !== "org"
        ? [{ path: `permissions.${i}`, message: `${p} is a system permission: an org role holds org permissions only` }]
        : [],
  );
  if (errors.length > 0) throw validationFailed(errors, "Some permissions cannot be in this role.");
  return list as Permission[];
}

export async function requireRole(db: Pick<DataLayer, "role">, roleId: string): Promise<RoleRow> {
  const role = await db.role.findUnique({ where: { id: roleId }, include: ROLE_INCLUDE });
  if (!role) throw notFound("role");
  return role;
}

export const permissionsOf = (role: RoleRow): Permission[] =>
  role.permissions.map((p) => p.permission).filter(isPermission);

export function permissionCatalog() {
  return { data: ALL_PERMISSIONS.map((permission) => ({ permission, ...PERMISSIONS[permission] })) };
}

export async function listRoles(
  ctx: Context,
  query: ListRolesQuery,
): Promise<{ data: Role[]; next_cursor: string | null }> {
  const where: Prisma.RoleWhereInput = {
    ...(query.scope ? { scope: query.scope } : {}),
    ...(query.q ? { name: containing(query.q) } : {}),
  };
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  return paginate(
    query,
    newestFirst,
    (w) =>
      db.role.findMany({ where: { ...where, ...w.after }, include: ROLE_INCLUDE, orderBy: w.orderBy, take: w.take }),
    toRole,
  );
}

export async function getRole(ctx: Context, roleId: string, options: { includeDeleted?: boolean } = {}): Promise<Role> {
  const db = options.includeDeleted === true ? ctx.includingDeleted() : ctx.db;
  return toRole(await requireRole(db, roleId));
}

/** Refuses a role past the platform's MAX_ROLES live ones. */
const requireRoomForRole = (tx: Pick<DataLayer, "$executeRaw" | "role">) =>
  requireBelowPlatformLimit(tx, { name: "roles", max: MAX_ROLES }, () =>
    tx.role.count({ where: { is_deleted: false } }),
  );

export async function createRole(ctx: Context, input: CreateRoleInput): Promise<Role> {
  const permissions = checkPermissions(input.scope, input.permissions);
  requireHeldByActor(ctx.actor, permissions);
  const row = await ctx.db.$transaction(async (tx) => {
    await requireRoomForRole(tx);
    return tx.role.create({
      data: {
        name: input.name,
        description: input.description ?? null,
        scope: input.scope,
        permissions: { create: permissions.map((permission) => ({ permission })) },
      },
      include: ROLE_INCLUDE,
    });
  });
  return toRole(row);
}

/**
 * Renames, describes or re-permissions a role. The scope never changes (grants depend on it);
 * built-in roles keep their name and their catalog-defined permissions. Adding or removing a
 * permission needs the editor to hold it globally: the role may be granted anywhere.
 */
export async function updateRole(ctx: Context, roleId: string, input: UpdateRoleInput): Promise<Role> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    const role = await requireRole(tx, roleId);
    const immutable: { path: string; message: string }[] = [];
    if (input.scope !== undefined && input.scope !== role.scope)
      immutable.push({ path: "scope", message: "is fixed at creation" });
    if (role.is_built_in && input.name !== undefined && input.name !== role.name)
      immutable.push({ path: "name", message: "a built-in role cannot be renamed" });
    const before = new Set(permissionsOf(role));
    const after = input.permissions === undefined ? before : new Set(checkPermissions(role.scope, input.permissions));
    const added = [...after].filter((p) => !before.has(p));
    const removed = [...before].filter((p) => !after.has(p));
    if (role.is_built_in && added.length + removed.length > 0) {
      immutable.push({ path: "permissions", message: "a built-in role's permissions follow the catalog" });
    }
    if (immutable.length > 0) {
      throw new DomainError("immutable_field", `Cannot change: ${immutable.map((e) => e.path).join(", ")}.`, {
        errors: immutable,
      });
    }
    requireHeldByActor(ctx.actor, [...added, ...removed]);
    if (removed.length > 0)
      await tx.rolePermission.deleteMany({ where: { role_id: roleId, permission: { in: removed } } });
    if (added.length > 0)
      await tx.rolePermission.createMany({ data: added.map((permission) => ({ role_id: roleId, permission })) });
    const updated = await tx.role.update({
      where: { id: roleId },
      data: {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
      },
      include: ROLE_INCLUDE,
    });
    // Anyone holding the role may have gained or lost: every cached key resolution is stale.
    return { result: toRole(updated), event: added.length + removed.length > 0 ? { all: true } : null };
  });
}

/** Soft delete: grants of the role stop counting at once. Built-in roles cannot be deleted. */
export async function deleteRole(ctx: Context, roleId: string): Promise<Role> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    const role = await requireRole(tx, roleId);
    if (role.is_built_in) throw new DomainError("conflict", `${role.name} is a built-in role and cannot be deleted.`);
    // Deleting takes the role away from everyone who holds it: only for those who could grant it.
    requireHeldByActor(ctx.actor, permissionsOf(role));
    const deleted = await tx.role.update({ where: { id: roleId }, data: { is_deleted: true }, include: ROLE_INCLUDE });
    return { result: toRole(deleted), event: { all: true } };
  });
}

/** Brings a deleted role back, and with it its grants: like granting, only for those who could grant it. */
export async function restoreRole(ctx: Context, roleId: string): Promise<Role> {
  return withAccessChange(ctx.db, async (tx) => {
    const deleted = await tx.role.findFirst({ where: { id: roleId, is_deleted: true }, include: ROLE_INCLUDE });
    if (!deleted) return { result: toRole(await requireRole(tx, roleId)), event: null };
    requireHeldByActor(ctx.actor, permissionsOf(deleted));
    await requireRoomForRole(tx);
    const restored = await tx.role.update({
      where: { id: roleId, is_deleted: true },
      data: { is_deleted: false },
      include: ROLE_INCLUDE,
    });
    return { result: toRole(restored), event: { all: true } };
  });
}
