import { systemActor, type SessionActor } from "@/server/auth/actor";
import { loadGrants } from "@/server/auth/grants";
import type { BaseClient } from "@/server/db/client";
import { dataLayer } from "@/server/db/data-layer";
import { mapDatabaseError } from "@/server/db/errors";
import type { DomainError } from "@/server/errors";

// Actors for service-level tests: a signed-in user as the console would see them now (grants
// read fresh, as on every request), and the trusted system actor.

export const cli = systemActor("test");

export async function sessionActor(client: BaseClient, userId: string): Promise<SessionActor> {
  const db = dataLayer("test", { client });
  const user = await client.user.findUniqueOrThrow({ where: { id: userId } });
  return {
    kind: "session",
    userId,
    username: user.username,
    displayName: user.display_name,
    grants: await loadGrants(db, userId),
  };
}

/**
 * The DomainError a refused call raises, a database error mapped as invoke() maps it (fails the test
 * when the call succeeds or throws anything else).
 */
export async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => new Error("expected a refusal, but the call succeeded"),
    (e: unknown) => e,
  );
  const domain = mapDatabaseError(error);
  if (!domain) throw error;
  return domain;
}
