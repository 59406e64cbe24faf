import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import { requireHeldByActor } from "@/server/auth/escalation";
import { groupRoles, loadGrants, makesSysAdmin } from "@/server/auth/grants";
import { ALL_PERMISSIONS, isDangerous, PERMISSIONS, type Permission } from "@/lib/permissions";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { lockSysAdmins, requireAnotherSysAdmin, withAccessChange } from "@/server/services/access-changes";
import { byRowId, paginate, type PageQuery } from "@/server/services/pagination";
import type { EffectivePermissionsView, GrantRoleInput, grantSchema, HeldPermission } from "@/lib/schemas/roles";
import { permissionsOf, requireRole, ROLE_INCLUDE } from "./service";

// Grants of roles to users, and what a user holds through them. Routes declare who may call what
// (svc:system:roles:* or svc:org:members:*); this module keeps the rules of the data:
// - a system role is granted globally only, an org role only in one organization the user is in;
// - no escalation: requireHeldByActor (src/server/auth/escalation.ts), for revoking as for granting;
// - the last sys_admin cannot lose the role;
// - every change of who holds what is announced, so API keys follow it at their next request.

const GRANT_SELECT = {
  id: true,
  user_id: true,
  org_id: true,
  created_at: true,
  role: { select: { id: true, name: true, scope: true, is_built_in: true } },
  org: { select: { name: true } },
} as const;
type GrantRow = Prisma.UserRoleGetPayload<{ select: typeof GRANT_SELECT }>;
type Grant = z.output<typeof grantSchema>;

// A mapper: the role and the organization's name come nested from their own tables.
function toGrant(row: GrantRow): Grant {
  return {
    id: row.id,
    user_id: row.user_id,
    role: {
      id: row.role.id,
      name: row.role.name,
      scope: row.role.scope as Grant["role"]["scope"],
      is_built_in: row.role.is_built_in,
    },
    org_id: row.org_id,
    org_name: row.org?.name ?? null,
    created_at: row.created_at,
  };
}

const isServiceAccount = async (db: Pick<DataLayer, "user">, userId: string) =>
  (await db.user.findUnique({ where: { id: userId }, select: { kind: true } }))?.kind === "service";

async function requireUser(db: Pick<DataLayer, "user">, userId: string): Promise<void> {
  if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound("user");
}

/** A user's grants (global and per organization) of roles that are not deleted. */
export async function listGrants(ctx: Context, userId: string, query: PageQuery) {
  const { db } = ctx;
  await requireUser(db, userId);
  const where = { user_id: userId, role: { is_deleted: false } };
  return paginate(
    query,
    byRowId,
    (w) =>
      db.userRole.findMany({ where: { ...where, ...w.after }, select: GRANT_SELECT, orderBy: w.orderBy, take: w.take }),
    toGrant,
  );
}

/**
 * Grants a role: a system role globally (org_id null), an org role in one organization the user
 * belongs to. The granter must hold every permission of the role there (requireHeldByActor).
 */
export async function grantRole(ctx: Context, userId: string, input: GrantRoleInput): Promise<Grant> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    await requireUser(tx, userId);
    const role = await requireRole(tx, input.role_id);
    if (role.scope === "system" && input.org_id !== null) {
      throw validationFailed([
        {
          path: "role_id",
          message: "is a system role: it is granted globally (org_id null), never in an organization",
        },
      ]);
    }
    if (role.scope === "org" && input.org_id === null) {
      throw validationFailed([
        { path: "org_id", message: "an org role is granted in one organization: give its org_id" },
      ]);
    }
    if (role.scope === "system" && (await isServiceAccount(tx, userId))) {
      throw validationFailed([
        { path: "role_id", message: "is a system role: a service account holds org roles only" },
      ]);
    }
    if (input.org_id !== null) {
      if (!(await tx.organization.findUnique({ where: { id: input.org_id }, select: { id: true } })))
        throw notFound("organization");
      const member = await tx.userOrgMembership.findUnique({
        where: { user_id_org_id: { user_id: userId, org_id: input.org_id } },
      });
      if (!member) throw new DomainError("conflict", "The user is not a member of this organization: add them first.");
    }
    requireHeldByActor(ctx.actor, permissionsOf(role), input.org_id ?? undefined);
    const row = await tx.userRole.create({
      data: { user_id: userId, role_id: role.id, org_id: input.org_id },
      select: GRANT_SELECT,
    });
    return { result: toGrant(row), event: { userId } };
  });
}

async function revoke(ctx: Context, userId: string, where: Prisma.UserRoleWhereInput): Promise<Grant> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    await lockSysAdmins(tx);
    await requireUser(tx, userId);
    const grant = await tx.userRole.findFirst({
      where: { ...where, user_id: userId },
      select: { ...GRANT_SELECT, role: { include: ROLE_INCLUDE } },
    });
    if (!grant) throw notFound("grant");
    // Taking a role away is limited like giving it: a lesser admin cannot demote a greater one.
    requireHeldByActor(ctx.actor, permissionsOf(grant.role), grant.org_id ?? undefined);
    if (grant.org_id === null && grant.role.is_built_in && grant.role.name === "sys_admin") {
      await requireAnotherSysAdmin(tx, userId, "Revoking this grant");
    }
    await tx.userRole.delete({ where: { id: grant.id } });
    return { result: toGrant(grant), event: { userId } };
  });
}

/** Revokes one grant of a user (global or in an organization). */
export const revokeGrant = (ctx: Context, userId: string, grantId: number) => revoke(ctx, userId, { id: grantId });

/**
 * The org admin's grant: an org role, in organization `orgId`, to a member of it. The member the
 * path names is looked up first, as reading or removing it does: anyone else is not found there,
 * whatever organization they belong to.
 */
export async function grantOrgRole(ctx: Context, orgId: string, userId: string, roleId: string): Promise<Grant> {
  const member = await ctx.db.userOrgMembership.findFirst({
    where: { org_id: orgId, user_id: userId, user: { is_deleted: false } },
    select: { id: true },
  });
  if (!member) throw notFound("member");
  return grantRole(ctx, userId, { role_id: roleId, org_id: orgId });
}

/** The org admin's revoke: role `roleId` granted in organization `orgId`. */
export const revokeOrgRole = (ctx: Context, orgId: string, userId: string, roleId: string) =>
  revoke(ctx, userId, { org_id: orgId, role_id: roleId });

/**
 * What a user may do now, globally and in each organization they belong to, with the roles each
 * permission comes from. The same rules as authorize.ts: sys_admin holds everything everywhere; a
 * global grant applies in every organization; an org grant applies in its organization.
 */
export async function effectivePermissionsOf(ctx: Context, userId: string): Promise<EffectivePermissionsView> {
  const { db } = ctx;
  await requireUser(db, userId);
  const [grants, fromGroups, rows] = await Promise.all([
    loadGrants(db, userId),
    groupRoles(db, userId),
    db.userRole.findMany({
      where: { user_id: userId, role: { is_deleted: false } },
      select: {
        org_id: true,
        role: {
          select: {
            id: true,
            name: true,
            scope: true,
            is_built_in: true,
            permissions: { select: { permission: true } },
          },
        },
      },
      orderBy: { id: "asc" },
    }),
  ]);
  // Roles held through a directory group count as grants in its organization.
  const sourced = [...rows, ...fromGroups].map(({ org_id, role }) => ({
    org_id,
    role_id: role.id,
    role_name: role.name,
    permissions: new Set(role.permissions.map((p) => p.permission)),
    makesSysAdmin:
      org_id === null &&
      makesSysAdmin(
        role,
        role.permissions.map((p) => p.permission),
      ),
  }));
  const source = (s: (typeof sourced)[number]) => ({ role_id: s.role_id, role_name: s.role_name, org_id: s.org_id });

  function view(permission: Permission, orgId: string | null): HeldPermission | undefined {
    const from = sourced.filter(
      (s) =>
        (grants.isSysAdmin && s.makesSysAdmin) ||
        (s.permissions.has(permission) &&
          (s.org_id === null || (s.org_id === orgId && PERMISSIONS[permission].scope === "org"))),
    );
    return from.length > 0 ? { permission, dangerous: isDangerous(permission), sources: from.map(source) } : undefined;
  }
  const heldIn = (orgId: string | null) =>
    ALL_PERMISSIONS.map((p) => view(p, orgId)).filter((v): v is HeldPermission => v !== undefined);

  return {
    user_id: userId,
    is_sys_admin: grants.isSysAdmin,
    global: heldIn(null),
    organizations: [...grants.memberships].map(([id, name]) => ({ id, name, permissions: heldIn(id) })),
  };
}
