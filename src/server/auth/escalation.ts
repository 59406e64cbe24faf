import "server-only";
import { isDangerous, isPermission, type Permission } from "@/lib/permissions";
import { DomainError } from "@/server/errors";
import type { Actor } from "./actor";
import { grantsHoldAnywhere, holds, holdsAnywhere, isSysAdmin } from "./authorize";
import type { Grants } from "./grants";

// The no-escalation rules: nobody hands out, takes away or takes over more than they hold
// themselves (a key's or an OAuth client's scopes, a role's grants, another user's credentials),
// with the scope checks they start from (a requested scope must be a known permission; a key never
// carries a dangerous one). Services ask for them while they change something; what an actor holds
// is decided by authorize.ts.

/**
 * Granting, revoking or editing something that carries `permissions` requires the actor to hold
 * every one of them — globally, or in organization `orgId` for something that acts there — unless
 * the actor is a sys_admin. Nobody hands out (or takes away) more than they hold themselves.
 */
export function requireHeldByActor(actor: Actor, permissions: readonly Permission[], orgId?: string): void {
  if (isSysAdmin(actor)) return;
  const missing = permissions.filter((p) => !holds(actor, p, orgId));
  if (missing.length > 0) {
    const where = orgId === undefined ? "globally" : "in this organization";
    throw new DomainError(
      "scope_not_held",
      `You do not hold ${missing.join(", ")} ${where}, so you cannot pass it on.`,
      { scopes: missing },
    );
  }
}

/**
 * Changing another user's credentials or identity (password, username, email, linked identities,
 * deleting or restoring the user) hands the actor that user's power: it must already hold
 * everything the target holds, globally and in each of the target's organizations, and only a
 * sys_admin touches a sys_admin. One's own credentials are one's own. Refused: 403 forbidden.
 */
export function requireOutranks(actor: Actor, target: { userId: string; grants: Grants }): void {
  if (isSysAdmin(actor) || (actor.kind !== "system" && actor.userId === target.userId)) return;
  const refuse = (why: string) => new DomainError("forbidden", `You cannot change this user's credentials: ${why}.`);
  if (target.grants.isSysAdmin) throw refuse("the user is a sys_admin");
  const missing = [...target.grants.global].filter((p) => !holds(actor, p));
  for (const orgId of target.grants.memberships.keys()) {
    for (const p of target.grants.byOrg.get(orgId) ?? []) if (!holds(actor, p, orgId)) missing.push(p);
  }
  if (missing.length > 0) throw refuse(`the user holds ${[...new Set(missing)].join(", ")}, which you do not`);
}

/**
 * Resetting a user's second factor is done to someone else: one's own is turned off with one's
 * password and a code, so a session alone cannot strip it.
 */
export function requireResetOfAnother(actor: Actor, userId: string): void {
  if (actor.kind !== "system" && actor.userId === userId) {
    throw new DomainError(
      "forbidden",
      "Turn off your own two-factor authentication from Your account, with your password and a code.",
    );
  }
}

/** Requested scopes must be catalog permissions: 400 `unknown_scope`, each named as `field.N`. */
export function requireKnownScopes(scopes: readonly string[], field: string): Permission[] {
  const unknown = scopes.filter((s) => !isPermission(s));
  if (unknown.length > 0) {
    throw new DomainError("unknown_scope", `Unknown scope: ${unknown.join(", ")}.`, {
      scopes: unknown,
      errors: unknown.map((s) => ({
        path: `${field}.${scopes.indexOf(s)}`,
        message: `${s} is not a known permission`,
      })),
    });
  }
  return scopes as Permission[];
}

/**
 * Scopes given to something that will act with them (an API key for its owner, an OAuth client for
 * its registrant): unless the holder is a sys_admin, each must be held by the holder globally or in
 * at least one organization (403 `scope_not_held`, naming the ones it lacks).
 */
export function requireScopesHeld(holder: Grants | Actor, scopes: readonly Permission[], whose: string): void {
  const isActor = "kind" in holder;
  if (isActor ? isSysAdmin(holder) : holder.isSysAdmin) return;
  const notHeld = scopes.filter((p) => !(isActor ? holdsAnywhere(holder, p) : grantsHoldAnywhere(holder, p)));
  if (notHeld.length > 0)
    throw new DomainError("scope_not_held", `${whose} not hold: ${notHeld.join(", ")}.`, { scopes: notHeld });
}

/** Scopes a key will actually carry: its stored scopes without the dangerous ones. */
export const sanitizeScopes = (scopes: readonly Permission[]): Permission[] => scopes.filter((p) => !isDangerous(p));
