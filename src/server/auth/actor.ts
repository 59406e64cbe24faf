import "server-only";
import type { Grants } from "./grants";
import type { Permission } from "@/lib/permissions";

// Who is acting. Every service function takes one; authorization (authorize.ts) reads it.

export interface UserIdentity {
  userId: string;
  username: string;
  displayName: string | null;
}

/** A sys_admin signed into the console (or any signed-in user on the REST routes). */
export interface SessionActor extends UserIdentity {
  kind: "session";
  grants: Grants;
}

/** An integration presenting X-API-KEY: acts for the key's owner, within the key's scopes. */
export interface ApiKeyActor extends UserIdentity {
  kind: "api_key";
  /** The owner's grants at request time. */
  grants: Grants;
  key: { id: string; prefix: string; expiresAt: Date | null; scopes: readonly Permission[] };
}

/** The operator CLI, seed and start-up: trusted code with every permission. */
export interface SystemActor {
  kind: "system";
  name: string;
}

export type Actor = SessionActor | ApiKeyActor | SystemActor;
export type UserActor = SessionActor | ApiKeyActor;

/** What created_by / updated_by record for this actor. */
export const auditName = (actor: Actor): string => (actor.kind === "system" ? `system:${actor.name}` : actor.userId);

export const systemActor = (name: string): SystemActor => ({ kind: "system", name });
