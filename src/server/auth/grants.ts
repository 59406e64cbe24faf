import "server-only";
import type { DataLayer } from "@/server/db/data-layer";
import { isPermission, PERMISSIONS, type Permission } from "@/lib/permissions";

// What a user holds right now: permissions granted globally (system-scoped grants, org_id null)
// and per organization (grants with that org_id), and the organizations the user belongs to.

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

export async function loadGrants(
  db: Pick<DataLayer, "userRole" | "userOrgMembership" | "organization">,
  userId: string,
): Promise<Grants> {
  const [grants, memberships] = await Promise.all([
    db.userRole.findMany({
      where: { user_id: userId, role: { is_deleted: false } },
      select: {
        org_id: true,
        role: { select: { name: true, is_built_in: true, scope: true, permissions: { select: { permission: true } } } },
      },
    }),
    db.userOrgMembership.findMany({
      where: { user_id: userId, org: { is_deleted: false } },
      select: { org_id: true, org: { select: { name: true, status: true } } },
    }),
  ]);
  const global = new Set<Permission>();
  const byOrg = new Map<string, Set<Permission>>();
  let isSysAdmin = false;
  for (const { org_id, role } of grants) {
    const permissions = role.permissions.map((p) => p.permission).filter(isPermission);
    if (org_id === null) {
      if (makesSysAdmin(role, permissions)) isSysAdmin = true;
      for (const p of permissions) global.add(p);
    } else {
      const set = byOrg.get(org_id) ?? new Set<Permission>();
      for (const p of permissions) set.add(p);
      byOrg.set(org_id, set);
    }
  }
  const inactive = new Set(memberships.filter((m) => m.org.status !== "active").map((m) => m.org_id));
  if (!isSysAdmin && [...global].some((p) => PERMISSIONS[p].scope === "org")) {
    const others = await db.organization.findMany({ where: { status: { not: "active" } }, select: { id: true } });
    for (const { id } of others) inactive.add(id);
  }
  return {
    isSysAdmin,
    global,
    byOrg,
    memberships: new Map(memberships.map((m) => [m.org_id, m.org.name])),
    inactive,
  };
}
