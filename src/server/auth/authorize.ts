import "server-only";
import { ALL_PERMISSIONS, isDangerous, PERMISSIONS, type Permission } from "@/lib/permissions";
import { DomainError } from "@/server/errors";
import type { Actor, ApiKeyActor, UserActor } from "./actor";
import type { Grants } from "./grants";
import { isMetricsScraper } from "./metrics-token";

// Access decisions: "may this actor do this" — the declared access of every operation, the
// sys_admin-only `include_deleted`, which organizations an actor sees and acts in, and private
// conversations. The no-escalation rules built on these answers are in escalation.ts. Services keep
// the rules of the data; they never decide access.

/** Whether the grants hold P globally, or in organization `orgId` (where the user is a member). */
function grantsHold(grants: Grants, permission: Permission, orgId?: string): boolean {
  if (grants.isSysAdmin || grants.global.has(permission)) return true;
  if (orgId === undefined || PERMISSIONS[permission].scope !== "org") return false;
  return grants.memberships.has(orgId) && (grants.byOrg.get(orgId)?.has(permission) ?? false);
}

/** Whether grants hold P globally or in at least one organization. */
export function grantsHoldAnywhere(grants: Grants, permission: Permission): boolean {
  if (grantsHold(grants, permission)) return true;
  return [...grants.memberships.keys()].some((orgId) => grantsHold(grants, permission, orgId));
}

/**
 * sys_admin: holds the built-in sys_admin role or a system role with svc:system:admin. For a key
 * session this is the key's owner (the operation's permission is still checked against the key).
 */
export function isSysAdmin(actor: Actor): boolean {
  return actor.kind === "system" || actor.grants.isSysAdmin;
}

/** A key carries its scopes minus the dangerous ones; any other actor is not narrowed. */
const keyAllows = (actor: Actor, permission: Permission): boolean =>
  actor.kind !== "api_key" || (!isDangerous(permission) && actor.key.scopes.includes(permission));

/** A key restricted to some organizations (`allowed_org_ids`) acts in no other, whatever its owner holds. */
const keyRestrictedFrom = (actor: Actor, orgId: string): boolean =>
  actor.kind === "api_key" && actor.key.allowedOrgIds !== undefined && !actor.key.allowedOrgIds.has(orgId);

/**
 * Organizations a key answers for as if its owner were not a member: those outside its
 * `allowed_org_ids`, and any that is not active (read-only to everyone but sys_admins, and out of
 * reach of API keys entirely, a sys_admin's excepted).
 */
const keyShutOut = (actor: Actor, orgId: string | undefined): boolean =>
  actor.kind === "api_key" &&
  orgId !== undefined &&
  (keyRestrictedFrom(actor, orgId) || (!actor.grants.isSysAdmin && actor.grants.inactive.has(orgId)));

/** An organization whose enforced SSO the session did not sign in through (sso-enforcement.ts). */
const sessionShutOut = (actor: Actor, orgId: string | undefined): boolean =>
  actor.kind === "session" && orgId !== undefined && (actor.ssoShutOut?.has(orgId) ?? false);

/** Does the actor hold `permission`, globally or in organization `orgId`? */
export function holds(actor: Actor, permission: Permission, orgId?: string): boolean {
  if (actor.kind === "system") return true;
  return (
    keyAllows(actor, permission) &&
    !keyShutOut(actor, orgId) &&
    !sessionShutOut(actor, orgId) &&
    grantsHold(actor.grants, permission, orgId)
  );
}

/**
 * Does the actor hold `permission` globally or in at least one organization? A key counts only the
 * organizations it may act in: a grant in one outside its `allowed_org_ids` (or in a suspended
 * one) lends it nothing.
 */
export function holdsAnywhere(actor: Actor, permission: Permission): boolean {
  if (actor.kind === "system") return true;
  return (
    holds(actor, permission) || [...actor.grants.memberships.keys()].some((orgId) => holds(actor, permission, orgId))
  );
}

const lacking = (permission: Permission, message = `This needs the permission ${permission}.`) =>
  new DomainError("forbidden", message, { required_permission: permission });

function requirePermission(actor: Actor, permission: Permission, orgId?: string): void {
  if (!holds(actor, permission, orgId)) throw lacking(permission);
}

/**
 * Organization-scoped access: an organization the actor has no part in looks missing (404), so
 * other tenants stay invisible; for a list it is a plain 403. Inside the organization, lacking the
 * permission is a 403 naming it.
 */
function requireOrgPermission(
  actor: Actor,
  permission: Permission,
  orgId: string,
  options: { list?: boolean } = {},
): void {
  const visible =
    actor.kind === "system" ||
    (!keyShutOut(actor, orgId) &&
      (actor.grants.isSysAdmin || actor.grants.global.has(permission) || actor.grants.memberships.has(orgId)));
  if (!visible) {
    throw options.list
      ? lacking(permission, "You are not a member of this organization.")
      : new DomainError("not_found", "No such organization or resource.");
  }
  requirePermission(actor, permission, orgId);
}

function requireSysAdmin(actor: Actor, message = "This needs a platform sys_admin."): void {
  if (!isSysAdmin(actor)) throw lacking("svc:system:admin", message);
}

/** What an operation declares about who may call it (see src/server/operations/operation.ts). */
export type DeclaredAccess =
  | "public"
  | "authenticated"
  | "session"
  | "metrics"
  | { permission: Permission; sysAdmin?: boolean; org?: string; list?: boolean; anyOrg?: boolean };

/**
 * Decides a call of an operation, from its declaration and its path parameters: the declared
 * permission (in the organization the `org` parameter names), sys_admin where declared, and
 * `include_deleted`, which only sys_admins may pass. The console is for sys_admins only. A session
 * held to setting up two-factor authentication reaches only the operations that set it up.
 */
export function authorizeOperation(
  access: DeclaredAccess,
  actor: Actor | null,
  params: Record<string, unknown>,
  options: { console?: boolean; write?: boolean; duringTwoFactorSetup?: boolean } = {},
): asserts actor is Actor {
  if (access === "public") return;
  if (!actor) throw new DomainError("unauthenticated", "Send an API key in the X-API-KEY header, or sign in.");
  if (actor.kind === "session" && actor.mustSetUpTwoFactor && !options.duringTwoFactorSetup) {
    throw new DomainError(
      "forbidden",
      "Set up two-factor authentication first: the platform requires it of sys_admins.",
    );
  }
  if (access === "authenticated") return;
  if (access === "session") {
    if (actor.kind !== "session")
      throw new DomainError("forbidden", "Only a signed-in console session may do this, never an API key.");
    if (options.console) requireSysAdmin(actor);
    return;
  }
  if (access === "metrics") {
    if (!isMetricsScraper(actor)) throw new DomainError("forbidden", "This is for the metrics scraper.");
    return;
  }
  // An organization in the path that a restricted key may not act in looks missing, whatever the
  // route declares (organization-scoped routes answer through requireOrgPermission below).
  const orgInPath = params.org_id;
  if (!access.org && typeof orgInPath === "string" && keyRestrictedFrom(actor, orgInPath)) {
    throw new DomainError("not_found", "No such organization or resource.");
  }
  // Inside an organization, its visibility comes first: another tenant's looks missing to everyone.
  if (access.org) {
    const orgId = params[access.org] as string;
    requireOrgPermission(actor, access.permission, orgId, { list: access.list });
    if (options.write && !isSysAdmin(actor) && actor.kind !== "system" && actor.grants.inactive.has(orgId)) {
      throw new DomainError(
        "forbidden",
        "The organization is suspended: it is read-only until the platform reactivates it.",
      );
    }
  }
  if (access.sysAdmin || options.console) requireSysAdmin(actor);
  if (access.org) return;
  if (access.anyOrg ? !holdsAnywhere(actor, access.permission) : !holds(actor, access.permission))
    throw lacking(access.permission);
}

/** `include_deleted=true` shows soft-deleted rows: sys_admins only. */
export function authorizeIncludeDeleted(actor: Actor | null, query: unknown): void {
  const asked =
    typeof query === "object" && query !== null && (query as { include_deleted?: unknown }).include_deleted === true;
  if (asked && actor) requireSysAdmin(actor, "Only sys_admins see deleted records.");
}

/** The organizations whose profile the actor may read: every one, or those of these ids. */
export function readableOrganizations(actor: Actor): "all" | string[] {
  if (actor.kind === "api_key" && actor.key.allowedOrgIds !== undefined) {
    const global = holds(actor, "svc:system:orgs:read");
    return [...actor.key.allowedOrgIds].filter(
      (orgId) => !keyShutOut(actor, orgId) && (global || holds(actor, "svc:org:read", orgId)),
    );
  }
  if (actor.kind === "system" || holds(actor, "svc:system:orgs:read")) return "all";
  return [...actor.grants.memberships.keys()].filter((orgId) => holds(actor, "svc:org:read", orgId));
}

/** Another user's records (their API keys): the user themself, or a sys_admin. */
export function requireSelfOrSysAdmin(actor: Actor, userId: string): void {
  if (actor.kind !== "system" && userId !== actor.userId)
    requireSysAdmin(actor, "Only a sys_admin reads another user's records.");
}

// Conversations -----------------------------------------------------------------------------------

const MANAGE_CONVERSATIONS: Permission = "svc:conversations:manage";

/**
 * Conversations are private to their user: the owner a conversation must have for the actor to see
 * it, or null when the actor manages every conversation of the organization.
 */
export function conversationOwnerRequired(actor: Actor, orgId: string): string | null {
  return actor.kind === "system" || holds(actor, MANAGE_CONVERSATIONS, orgId) ? null : actor.userId;
}

/** Whose conversations a call is about: the caller's own, or (svc:conversations:manage) any member's. */
export function conversationUser(actor: Actor, orgId: string, requested: string | undefined): string {
  const own = actor.kind === "system" ? undefined : actor.userId;
  const userId = requested ?? own;
  if (!userId)
    throw new DomainError("validation_failed", "Whose conversations?", {
      errors: [{ path: "user_id", message: "is required" }],
    });
  if (userId !== own && !holds(actor, MANAGE_CONVERSATIONS, orgId)) {
    throw lacking(MANAGE_CONVERSATIONS, "Another member's conversations need the permission svc:conversations:manage.");
  }
  return userId;
}

/** Only the runtime (svc:conversations:manage) writes what is not a person's own words. */
export function requireMessageAuthor(
  actor: Actor,
  orgId: string,
  messages: readonly { role: string; source: string }[],
): void {
  if (holds(actor, MANAGE_CONVERSATIONS, orgId)) return;
  if (messages.some((m) => m.role !== "user" || m.source !== "human")) {
    throw lacking(
      MANAGE_CONVERSATIONS,
      "Without svc:conversations:manage, messages must have role user and source human.",
    );
  }
}

export interface EffectivePermissions {
  global: Permission[];
  organizations: { id: string; name: string; permissions: Permission[] }[];
}

/** Everything the actor may do now: globally, and per organization it belongs to. */
export function effectivePermissions(actor: UserActor): EffectivePermissions {
  return {
    global: ALL_PERMISSIONS.filter((p) => holds(actor, p)),
    organizations: [...actor.grants.memberships]
      .filter(([id]) => !keyShutOut(actor, id))
      .map(([id, name]) => ({
        id,
        name,
        permissions: ALL_PERMISSIONS.filter((p) => holds(actor, p, id)),
      })),
  };
}

// Verifying a key for the platform's services ----------------------------------------------------

/** The organizations a key acts in now: its owner's, less those it is restricted from or that are inactive. */
export const keyOrganizations = (actor: ApiKeyActor): string[] =>
  [...actor.grants.memberships.keys()].filter((orgId) => !keyShutOut(actor, orgId));

/**
 * Whether a key may act in organization `orgId` at all (the verify answer's ORG_NOT_ALLOWED): one
 * of its organizations, or any for an owner who holds organization permissions globally.
 */
export function keyActsIn(actor: ApiKeyActor, orgId: string): boolean {
  if (keyShutOut(actor, orgId)) return false;
  const { grants } = actor;
  return (
    grants.isSysAdmin || grants.memberships.has(orgId) || [...grants.global].some((p) => PERMISSIONS[p].scope === "org")
  );
}

/** What the key may do now: in organization `orgId` when given, else globally. */
export const keyPermissions = (actor: ApiKeyActor, orgId?: string): Permission[] =>
  ALL_PERMISSIONS.filter((p) => holds(actor, p, orgId));
