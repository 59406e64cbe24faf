import "server-only";
import { announceCommitted, CHANNEL, notifyPayload, type Invalidation } from "@/server/auth/invalidation";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";

// Changes to who holds what (grants, memberships, a role's permissions, a deleted or restored
// user) are announced inside the changing transaction, so other processes receive them once it
// commits, and applied to this process's caches after the commit: API keys follow at their next request.

type Tx = Pick<DataLayer, "$executeRaw">;

/** Queues the announcement in the transaction; pg_notify delivers it on commit only. */
async function announce(tx: Tx, event: Invalidation): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${notifyPayload(event)})`;
}

/** Past this many users changed at once, everything is announced instead of each of them. */
const MAX_USERS_ANNOUNCED = 50;

/** Runs `work` in a transaction that announces `event` (or each of `event`), then applies it in this process. */
export async function withAccessChange<T>(
  db: Pick<DataLayer, "$transaction">,
  work: (
    tx: Parameters<Parameters<DataLayer["$transaction"]>[0]>[0],
  ) => Promise<{ result: T; event: Invalidation | readonly Invalidation[] | null }>,
): Promise<T> {
  const { result, events } = await db.$transaction(async (tx) => {
    const done = await work(tx);
    const listed = done.event === null ? [] : "length" in done.event ? done.event : [done.event];
    const events: readonly Invalidation[] = listed.length > MAX_USERS_ANNOUNCED ? [{ all: true }] : listed;
    for (const event of events) await announce(tx, event);
    return { result: done.result, events };
  });
  for (const event of events) announceCommitted(event);
  return result;
}

/** Ends every console session of the user, in every process, once the transaction commits. */
export async function endSessions(tx: Pick<DataLayer, "user">, userId: string): Promise<Invalidation> {
  await tx.user.update({ where: { id: userId }, data: { session_epoch: { increment: 1 } }, select: { id: true } });
  return { userId };
}

// The last sys_admin ------------------------------------------------------------------------------

const SYS_ADMIN_LOCK = 727_073_692;

/** Serializes changes that could remove a sys_admin, so two of them cannot each remove "the other". */
export async function lockSysAdmins(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SYS_ADMIN_LOCK})`;
}

const builtInSysAdminGrant = {
  org_id: null,
  role: { name: "sys_admin", is_built_in: true, is_deleted: false },
} as const;

/** Whether the user holds the built-in sys_admin role globally. */
export async function holdsBuiltInSysAdmin(tx: Pick<DataLayer, "userRole">, userId: string): Promise<boolean> {
  return (await tx.userRole.count({ where: { ...builtInSysAdminGrant, user_id: userId } })) > 0;
}

/** Refuses (409) when no other non-deleted user holds the built-in sys_admin role globally. */
export async function requireAnotherSysAdmin(
  tx: Pick<DataLayer, "userRole">,
  userId: string,
  what: string,
): Promise<void> {
  const others = await tx.userRole.count({
    where: { ...builtInSysAdminGrant, user_id: { not: userId }, user: { is_deleted: false } },
  });
  if (others === 0) {
    throw new DomainError(
      "conflict",
      `${what} would leave the platform without a sys_admin: grant the sys_admin role to another user first.`,
    );
  }
}
