import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import type { SessionActor } from "@/server/auth/actor";
import { baseClient } from "@/server/db/client";
import { DomainError } from "@/server/errors";
import { OPERATION_GROUPS } from "@/server/operations";
import type { AnyOperation } from "@/server/operations/operation";
import { createCaller } from "@/server/trpc/root";
import { sessionActor as sessionActorOf } from "./actors";
import { testDatabase } from "./database";
import { createSysAdmin, seedRoles } from "./fixtures";

// What the tRPC tests share: the session actor of a user as the console builds it, a caller acting
// as that user, and the TRPCError (and its DomainError) a call fails with.

/** A user's session actor, read through the process-wide client (the test file's database). */
export const sessionActor = (userId: string): Promise<SessionActor> => sessionActorOf(baseClient(), userId);

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

/**
 * The test file's own database (testDatabase) with the built-in roles, a sys_admin and a caller
 * acting as them: where every console test starts.
 */
export async function consoleTestbed() {
  const { client } = await testDatabase();
  await seedRoles(client);
  const admin = await createSysAdmin(client);
  const adminActor = await sessionActor(admin.id);
  return { client, admin, adminActor, asAdmin: createCaller({ actor: adminActor }) };
}
