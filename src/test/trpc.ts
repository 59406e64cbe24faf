import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import type { SessionActor } from "@/server/auth/actor";
import { loadGrants } from "@/server/auth/grants";
import { dataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";
import { createCaller } from "@/server/trpc/root";

// What the tRPC tests share: the session actor of a user as the console builds it, a caller acting
// as that user, and the TRPCError (and its DomainError) a call fails with.

export async function sessionActor(userId: string): Promise<SessionActor> {
  const db = dataLayer("test");
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  return { kind: "session", userId, username: user.username, displayName: user.display_name, grants: await loadGrants(db, userId) };
}

/** A caller acting as this user. */
export const callerAs = async (userId: string) => createCaller({ actor: await sessionActor(userId) });

/** The TRPCError a call fails with. */
export async function failure(call: Promise<unknown>): Promise<TRPCError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

export const domainOf = (error: TRPCError) => {
  expect(error.cause).toBeInstanceOf(DomainError);
  return error.cause as DomainError;
};

/** The paths of a validation failure's field errors. */
export const pathsOf = (error: TRPCError) => ((domainOf(error).details.errors ?? []) as { path: string }[]).map((e) => e.path);
