import "server-only";
import type { Grants } from "./grants";
import type { AllowedNetworks } from "./networks";
import type { Permission } from "@/lib/permissions";
import type { ApiKeyMeta, RateLimit } from "@/lib/schemas/api-keys";
import type { CreditsSource } from "@/server/limits/credits";

// Who is acting. Every service function takes one; authorization (authorize.ts) reads it.

interface UserIdentity {
  userId: string;
  username: string;
  displayName: string | null;
}

/** A sys_admin signed into the console (or any signed-in user on the REST routes). */
export interface SessionActor extends UserIdentity {
  kind: "session";
  grants: Grants;
  /**
   * A sys_admin without two-factor authentication while the platform requires it: the session may
   * do nothing but set it up (operations declaring `duringTwoFactorSetup`).
   */
  mustSetUpTwoFactor?: boolean;
  /** The SSO connection the session was signed in through, if any (an enforcing organization admits only its own). */
  ssoConnectionId?: string;
  /** Organizations whose enforced SSO this session did not sign in through: nothing it holds reaches them. */
  ssoShutOut?: ReadonlySet<string>;
}

/** An integration presenting X-API-KEY: acts for the key's owner, within the key's scopes. */
export interface ApiKeyActor extends UserIdentity {
  kind: "api_key";
  /** The owner's grants at request time. */
  grants: Grants;
  /**
   * `rateLimit`: the limit its requests count against (its own, else the platform default).
   * `allowedOrgIds`: the only organizations it acts in (undefined: all its owner's); `allowedCidrs`
   * and `networks` (parsed): where it may be used from (undefined: anywhere). `credits`: the
   * balance its requests spend (undefined: unlimited); `meta`: its owner's data about it.
   */
  key: {
    id: string;
    prefix: string;
    expiresAt: Date | null;
    scopes: readonly Permission[];
    rateLimit: RateLimit;
    allowedOrgIds?: ReadonlySet<string>;
    allowedCidrs?: readonly string[];
    networks?: AllowedNetworks;
    credits?: CreditsSource;
    meta: ApiKeyMeta;
    /** Whether the owner is a person or a service account. */
    ownerKind: "user" | "service_account";
  };
}

/** The operator CLI, seed and start-up: trusted code with every permission. */
export interface SystemActor {
  kind: "system";
  name: string;
}

/**
 * A directory calling the SCIM service with an organization's token: trusted code of the SCIM
 * service acting for it, in that organization only, never through an operation of the REST API.
 */
export interface ScimActor extends SystemActor {
  name: "scim";
  orgId: string;
  token: { id: string; prefix: string };
}

export const isScimActor = (actor: Actor): actor is ScimActor => actor.kind === "system" && "token" in actor;

export type Actor = SessionActor | ApiKeyActor | SystemActor;
export type UserActor = SessionActor | ApiKeyActor;

/** What created_by / updated_by record for this actor. */
export const auditName = (actor: Actor): string =>
  isScimActor(actor) ? `scim:${actor.token.prefix}` : actor.kind === "system" ? `system:${actor.name}` : actor.userId;

export const systemActor = (name: string): SystemActor => ({ kind: "system", name });
