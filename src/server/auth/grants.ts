import "server-only";
import type { DataLayer } from "@/server/db/data-layer";
import { isPermission, PERMISSIONS, type Permission } from "@/lib/permissions";

// What a user holds right now: permissions granted globally (system-scoped grants, org_id null)
// and per organization (grants with that org_id, and the roles mapped to the directory groups the
// user is in there), and the organizations the user belongs to. A membership its directory
// suspended (SCIM `active: false`) counts for nothing: neither it nor any role held there.

export interface Grants {
  isSysAdmin: boolean;
  global: ReadonlySet<Permission>;
  byOrg: ReadonlyMap<string, ReadonlySet<Permission>>;
  /** Organization id → name, for the non-deleted organizations the user is a member of. */
  memberships: ReadonlyMap<string, string>;
  /**
   * Organizations not active (suspended or archived) among those the user acts in: its memberships,
   * and every organization when the user holds organization permissions globally.
   */
  inactive: ReadonlySet<string>;
}

/** A role whose grant without an organization makes a sys_admin: the built-in one, or a system-scoped role carrying svc:system:admin. */
export const makesSysAdmin = (
  role: { name: string; is_built_in: boolean; scope: string },
  permissions: readonly string[],
): boolean =>
  (role.is_built_in && role.name === "sys_admin") ||
  (role.scope === "system" && permissions.includes("svc:system:admin"));

const roleSelect = {
  name: true,
  is_built_in: true,
  scope: true,
  permissions: { select: { permission: true } },
} as const;

/** The org roles of the directory groups the user is in, by organization (unsuspended people only). */
export async function groupRoles(
  db: Pick<DataLayer, "scimGroupMember" | "role">,
  userId: string,
): Promise<
  {
    org_id: string;
    role: { id: string; name: string; is_built_in: boolean; scope: string; permissions: { permission: string }[] };
  }[]
> {
  const groups = await db.scimGroupMember.findMany({
    where: { scim_user: { user_id: userId, active: true }, group: { role_ids: { isEmpty: false } } },
    select: { group: { select: { org_id: true, role_ids: true } } },
  });
  if (groups.length === 0) return [];
  const roles = await db.role.findMany({
    where: { id: { in: [...new Set(groups.flatMap((g) => g.group.role_ids))] }, scope: "org", is_deleted: false },
    select: { id: true, ...roleSelect },
  });
  const byId = new Map(roles.map((role) => [role.id, role]));
  return groups.flatMap(({ group }) =>
    group.role_ids.flatMap((roleId) => {
      const role = byId.get(roleId);
      return role ? [{ org_id: group.org_id, role }] : [];
    }),
  );
}

export async function loadGrants(
  db: Pick<DataLayer, "userRole" | "userOrgMembership" | "organization" | "scimGroupMember" | "role">,
  userId: string,
): Promise<Grants> {
  const [grants, fromGroups, memberships] = await Promise.all([
    db.userRole.findMany({
      where: { user_id: userId, role: { is_deleted: false } },
      select: { org_id: true, role: { select: roleSelect } },
    }),
    groupRoles(db, userId),
    db.userOrgMembership.findMany({
      where: { user_id: userId, org: { is_deleted: false } },
      select: { org_id: true, suspended_at: true, org: { select: { name: true, status: true } } },
    }),
  ]);
  const suspended = new Set(memberships.filter((m) => m.suspended_at !== null).map((m) => m.org_id));
  const global = new Set<Permission>();
  const byOrg = new Map<string, Set<Permission>>();
  let isSysAdmin = false;
  for (const { org_id, role } of [...grants, ...fromGroups]) {
    const permissions = role.permissions.map((p) => p.permission).filter(isPermission);
    if (org_id === null) {
      if (makesSysAdmin(role, permissions)) isSysAdmin = true;
      for (const p of permissions) global.add(p);
    } else if (!suspended.has(org_id)) {
      const set = byOrg.get(org_id) ?? new Set<Permission>();
      for (const p of permissions) set.add(p);
      byOrg.set(org_id, set);
    }
  }
  const active = memberships.filter((m) => m.suspended_at === null);
  const inactive = new Set(active.filter((m) => m.org.status !== "active").map((m) => m.org_id));
  if (!isSysAdmin && [...global].some((p) => PERMISSIONS[p].scope === "org")) {
    const others = await db.organization.findMany({ where: { status: { not: "active" } }, select: { id: true } });
    for (const { id } of others) inactive.add(id);
  }
  return {
    isSysAdmin,
    global,
    byOrg,
    memberships: new Map(active.map((m) => [m.org_id, m.org.name])),
    inactive,
  };
}
