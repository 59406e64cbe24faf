import { DomainError } from "@/server/errors";
import type { Actor, UserActor } from "./actor";
import type { Grants } from "./grants";
import { ALL_PERMISSIONS, isDangerous, PERMISSIONS, type Permission } from "./permissions";

// The one place that decides "may this actor do P here". Routes and procedures declare their
// permission; nothing else checks permissions.

/** Whether the grants hold P globally, or in organization `orgId` (where the user is a member). */
function grantsHold(grants: Grants, permission: Permission, orgId?: string): boolean {
  if (grants.isSysAdmin || grants.global.has(permission)) return true;
  if (orgId === undefined || PERMISSIONS[permission].scope !== "org") return false;
  return grants.memberships.has(orgId) && (grants.byOrg.get(orgId)?.has(permission) ?? false);
}

/**
 * sys_admin: holds the built-in sys_admin role or a system role with svc:system:admin. For a key
 * session this is the key's owner (the route's permission is still checked against the key).
 */
export function isSysAdmin(actor: Actor): boolean {
  return actor.kind === "system" || actor.grants.isSysAdmin;
}

/** Does the actor hold `permission`, globally or in organization `orgId`? */
export function holds(actor: Actor, permission: Permission, orgId?: string): boolean {
  if (actor.kind === "system") return true;
  if (actor.kind === "api_key") {
    // A key carries its scopes minus the dangerous ones, intersected with what the owner holds now.
    if (isDangerous(permission) || !actor.key.scopes.includes(permission)) return false;
  }
  return grantsHold(actor.grants, permission, orgId);
}

/** Whether a user holds P globally or in at least one organization (the key scope rule). */
export function holdsAnywhere(grants: Grants, permission: Permission): boolean {
  if (grantsHold(grants, permission)) return true;
  return [...grants.memberships.keys()].some((orgId) => grantsHold(grants, permission, orgId));
}

export function requirePermission(actor: Actor, permission: Permission, orgId?: string): void {
  if (!holds(actor, permission, orgId)) {
    throw new DomainError("forbidden", `This needs the permission ${permission}.`, { required_permission: permission });
  }
}

/**
 * Organization-scoped access: an organization the actor has no part in looks missing (404), so
 * other tenants stay invisible; for a list route it is a plain 403. Inside the organization,
 * lacking the permission is a 403 naming it.
 */
export function requireOrgPermission(actor: Actor, permission: Permission, orgId: string, options: { list?: boolean } = {}): void {
  const visible = actor.kind === "system" || actor.grants.isSysAdmin || actor.grants.global.has(permission) || actor.grants.memberships.has(orgId);
  if (!visible) {
    throw options.list
      ? new DomainError("forbidden", "You are not a member of this organization.", { required_permission: permission })
      : new DomainError("not_found", "No such organization or resource.");
  }
  requirePermission(actor, permission, orgId);
}

/** For catalogs every organization reads (plugins, models): the permission in any organization will do. */
export function requirePermissionAnywhere(actor: Actor, permission: Permission): void {
  if (actor.kind === "system") return;
  const keyAllows = actor.kind !== "api_key" || (!isDangerous(permission) && actor.key.scopes.includes(permission));
  if (!keyAllows || !holdsAnywhere(actor.grants, permission)) {
    throw new DomainError("forbidden", `This needs the permission ${permission}.`, { required_permission: permission });
  }
}

export function requireSysAdmin(actor: Actor): void {
  if (!isSysAdmin(actor)) {
    throw new DomainError("forbidden", "This needs a platform sys_admin.", { required_permission: "svc:system:admin" });
  }
}

/** Scopes a key will actually carry: its stored scopes without the dangerous ones. */
export const sanitizeScopes = (scopes: readonly Permission[]): Permission[] => scopes.filter((p) => !isDangerous(p));

export interface EffectivePermissions {
  global: Permission[];
  organizations: { id: string; name: string; permissions: Permission[] }[];
}

// A key's actor is cached and shared by its requests until its next lookup: so is this answer.
const effectiveByActor = new WeakMap<UserActor, Readonly<EffectivePermissions>>();

/** Everything the actor may do now: globally, and per organization it belongs to. */
export function effectivePermissions(actor: UserActor): Readonly<EffectivePermissions> {
  let effective = effectiveByActor.get(actor);
  if (!effective) {
    effective = {
      global: ALL_PERMISSIONS.filter((p) => holds(actor, p)),
      organizations: [...actor.grants.memberships].map(([id, name]) => ({
        id,
        name,
        permissions: ALL_PERMISSIONS.filter((p) => holds(actor, p, id)),
      })),
    };
    effectiveByActor.set(actor, effective);
  }
  return effective;
}
