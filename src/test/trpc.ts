import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import type { SessionActor } from "@/server/auth/actor";
import { loadGrants } from "@/server/auth/grants";
import { dataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";
import { OPERATION_GROUPS } from "@/server/operations";
import type { AnyOperation } from "@/server/operations/operation";
import { createCaller } from "@/server/trpc/root";

// What the tRPC tests share: the session actor of a user as the console builds it, a caller acting
// as that user, and the TRPCError (and its DomainError) a call fails with.

export async function sessionActor(userId: string): Promise<SessionActor> {
  const db = dataLayer("test");
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  return {
    kind: "session",
    userId,
    username: user.username,
    displayName: user.display_name,
    grants: await loadGrants(db, userId),
  };
}

/** A caller acting as this user. */
export const callerAs = async (userId: string) => createCaller({ actor: await sessionActor(userId) });

/**
 * The TRPCError a call fails with. Start the call where it is awaited: one started while another is
 * awaited may reject before anything listens, which vitest counts as an unhandled rejection.
 */
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
export const pathsOf = (error: TRPCError) =>
  ((domainOf(error).details.errors ?? []) as { path: string }[]).map((e) => e.path);

/** Every operation the console calls, with its procedure's dotted path (`orchestrators.get`). */
export const consoleOperations: readonly { path: string; operation: AnyOperation }[] = Object.entries(
  OPERATION_GROUPS,
).flatMap(([group, operations]) =>
  Object.entries(operations as Record<string, AnyOperation>)
    .filter(([, operation]) => operation.console !== false)
    .map(([name, operation]) => ({ path: `${group}.${name}`, operation })),
);

type Procedure = (input: unknown) => Promise<unknown>;

/** A procedure of a caller by its dotted path, e.g. "orchestrators.get". */
export function procedureAt(caller: ReturnType<typeof createCaller>, path: string): Procedure {
  const [router, name] = path.split(".") as [string, string];
  return (caller as unknown as Record<string, Record<string, Procedure>>)[router]![name]!;
}
