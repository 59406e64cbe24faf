import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import { Prisma } from "@/generated/prisma/client";
import type { UserActor } from "@/server/auth/actor";
import { requireOutranks } from "@/server/auth/escalation";
import { loadGrants } from "@/server/auth/grants";
import { generatePassword, hashPassword } from "@/server/auth/passwords";
import type { DataLayer } from "@/server/db/data-layer";
import { revokeAllApiKeys } from "@/server/services/api-keys/revocation";
import { DomainError, notFound } from "@/server/errors";
import { forgetEmailVerification } from "@/server/services/email-verification/service";
import {
  endSessions,
  holdsBuiltInSysAdmin,
  lockSysAdmins,
  requireAnotherSysAdmin,
  withAccessChange,
} from "@/server/services/access-changes";
import { newestFirst, oldestFirst, paginate, type PageQuery } from "@/server/services/pagination";
import { searchNewestFirst, type SearchedTable } from "@/server/services/search";
import type {
  CreateUserInput,
  ListUsersQuery,
  passwordResetSchema,
  ResetPasswordInput,
  UpdateUserInput,
  userSchema,
} from "@/lib/schemas/users";

// Platform users and their linked OAuth identities. username is unique among
// non-deleted users and email among non-deleted users that have one (partial unique indexes: a
// clash is a 409 naming the field). The password hash never leaves this module.

const USER_SELECT = {
  id: true,
  username: true,
  email: true,
  email_verified_at: true,
  display_name: true,
  avatar_url: true,
  locale: true,
  timezone: true,
  bio: true,
  password_hash: true,
  kind: true,
  is_deleted: true,
  created_by: true,
  created_at: true,
  updated_at: true,
} as const;
type UserRow = Prisma.UserGetPayload<{ select: typeof USER_SELECT }>;
type User = z.output<typeof userSchema>;

// A mapper: the password hash never leaves this module, only whether there is one.
function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    email_verified_at: row.email_verified_at,
    display_name: row.display_name,
    avatar_url: row.avatar_url,
    locale: row.locale,
    timezone: row.timezone,
    bio: row.bio,
    has_password: row.password_hash !== null,
    kind: row.kind as User["kind"],
    is_deleted: row.is_deleted,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function requireUser(db: Pick<DataLayer, "user">, userId: string): Promise<UserRow> {
  const user = await db.user.findUnique({ where: { id: userId }, select: USER_SELECT });
  if (!user) throw notFound("user");
  return user;
}

export async function createUser(ctx: Context, input: CreateUserInput): Promise<User> {
  const { password, ...profile } = input;
  const password_hash = password === null ? null : await hashPassword(password);
  const row = await ctx.db.user.create({
    data: { ...profile, password_hash },
    select: USER_SELECT,
  });
  return toUser(row);
}

// The `q` search: username, display name or email, each with a trigram index (search.ts).
const SEARCHED: SearchedTable = {
  table: "users",
  columns: ["username", "display_name", "email"],
  select: Object.keys(USER_SELECT),
};

export async function listUsers(
  ctx: Context,
  query: ListUsersQuery,
): Promise<{ data: User[]; next_cursor: string | null }> {
  const includeDeleted = query.include_deleted === true;
  const db = includeDeleted ? ctx.includingDeleted() : ctx.db;
  const q = query.q;
  if (q) {
    const filters = includeDeleted ? [] : [Prisma.sql`NOT is_deleted`];
    return paginate(query, newestFirst, (w) => searchNewestFirst<UserRow>(db, SEARCHED, q, filters, w), toUser);
  }
  return paginate(
    query,
    newestFirst,
    (w) => db.user.findMany({ where: w.after, select: USER_SELECT, orderBy: w.orderBy, take: w.take }),
    toUser,
  );
}

export async function getUser(ctx: Context, userId: string, options: { includeDeleted?: boolean } = {}): Promise<User> {
  return toUser(await requireUser(options.includeDeleted === true ? ctx.includingDeleted() : ctx.db, userId));
}

/** Whom the actor acts on, for the rule of credentials (requireOutranks): the target's grants now. */
export async function requireOutranksUser(ctx: Context, userId: string): Promise<void> {
  requireOutranks(ctx.actor, { userId, grants: await loadGrants(ctx.db, userId) });
}

/** A new username or email is a new way to sign in as the user: the rule of credentials applies. */
export async function updateUser(ctx: Context, userId: string, input: UpdateUserInput): Promise<User> {
  const { db } = ctx;
  const user = await requireUser(db, userId);
  const signInChanges =
    (input.username !== undefined && input.username !== user.username) ||
    (input.email !== undefined && input.email !== user.email);
  if (signInChanges) await requireOutranksUser(ctx, userId);
  const emailChanges = input.email !== undefined && input.email !== user.email;
  return withAccessChange(db, async (tx) => {
    // A new address is not shown to be the user's yet: its verification and any link sent to the
    // old one go with the change.
    if (emailChanges) await forgetEmailVerification(tx, userId);
    const data = emailChanges ? { ...input, email_verified_at: null } : input;
    return {
      result: toUser(await tx.user.update({ where: { id: userId }, data, select: USER_SELECT })),
      event: { userId },
    };
  });
}

/**
 * A sys_admin's word that another user's current email is theirs (the user proves their own with a
 * link). Already verified: unchanged. A user without an email: 409.
 */
export async function markEmailVerified(ctx: Context, userId: string): Promise<User> {
  const { db } = ctx;
  const user = await requireUser(db, userId);
  if (ctx.actor.kind !== "system" && ctx.actor.userId === userId)
    throw new DomainError("forbidden", "Verify your own email with the link sent to it, from Your account.");
  await requireOutranksUser(ctx, userId);
  if (user.email === null) throw new DomainError("conflict", "The user has no email to verify.");
  if (user.email_verified_at !== null) return toUser(user);
  await forgetEmailVerification(db, userId);
  const row = await db.user.update({
    // Only the address read above: one changed meanwhile is not the one the sys_admin vouched for.
    where: { id: userId, email: user.email },
    data: { email_verified_at: new Date() },
    select: USER_SELECT,
  });
  return toUser(row);
}

/** Sets a new password (the given one, or a generated one returned once) and ends the user's sessions. */
export async function resetPassword(
  ctx: Context,
  userId: string,
  input: ResetPasswordInput,
): Promise<z.output<typeof passwordResetSchema>> {
  const { db } = ctx;
  const user = await requireUser(db, userId);
  if (user.kind !== "human")
    throw new DomainError("conflict", "A service account has no password: it acts through its API keys only.");
  await requireOutranksUser(ctx, userId);
  const generated = input.password === undefined ? generatePassword() : null;
  const password_hash = await hashPassword(input.password ?? (generated as string));
  return withAccessChange(db, async (tx) => {
    const row = await tx.user.update({ where: { id: userId }, data: { password_hash }, select: USER_SELECT });
    return { result: { user: toUser(row), password: generated }, event: await endSessions(tx, userId) };
  });
}

/** Ends every console session of the signed-in user, this one included. */
export async function signOutEverywhere(ctx: Context<UserActor>): Promise<{ signed_out: true }> {
  return withAccessChange(ctx.db, async (tx) => ({
    result: { signed_out: true as const },
    event: await endSessions(tx, ctx.actor.userId),
  }));
}

type Tx = Parameters<Parameters<DataLayer["$transaction"]>[0]>[0];

/**
 * The one way a user is deleted, whichever route asks (the users' or an organization's service
 * accounts'). `check`, the asking route's own rules, runs first in the transaction; then the row is
 * soft-deleted: its API keys stop at once (here and, through the announcement, in every other
 * process) and its console sessions end at the next request. A service account's keys are also
 * revoked, one audit event each, in the same transaction, so that a restore brings none of them
 * back (decision 035); a person's keys come back with the person.
 */
export async function softDeleteUser<T>(
  ctx: Context,
  userId: string,
  check: (tx: Tx) => Promise<T>,
): Promise<{ row: UserRow; checked: T }> {
  const done = await withAccessChange(ctx.db, async (tx) => {
    const checked = await check(tx);
    await requireUser(tx, userId);
    const row = await tx.user.update({ where: { id: userId }, data: { is_deleted: true }, select: USER_SELECT });
    return { result: { row, checked }, event: { userId } };
  });
  if (done.row.kind === "service") await revokeAllApiKeys(ctx, userId);
  return done;
}

/** Soft delete (see softDeleteUser), by the rule of credentials. The last sys_admin cannot be deleted. */
export async function deleteUser(ctx: Context, userId: string): Promise<User> {
  await requireOutranksUser(ctx, userId);
  const { row } = await softDeleteUser(ctx, userId, async (tx) => {
    await lockSysAdmins(tx);
    if (await holdsBuiltInSysAdmin(tx, userId)) await requireAnotherSysAdmin(tx, userId, "Deleting this user");
  });
  return toUser(row);
}

/** Brings a deleted user back; 409 when another user has taken the username or email meanwhile. */
export async function restoreUser(ctx: Context, userId: string): Promise<User> {
  const db = ctx.includingDeleted();
  await requireUser(db, userId);
  await requireOutranksUser(ctx, userId);
  return withAccessChange(db, async (tx) => {
    const user = await requireUser(tx, userId);
    if (!user.is_deleted) return { result: toUser(user), event: null };
    const row = await tx.user.update({ where: { id: userId }, data: { is_deleted: false }, select: USER_SELECT });
    return { result: toUser(row), event: { userId } };
  });
}

// OAuth identities ---------------------------------------------------------------------------

const IDENTITY_SELECT = { id: true, user_id: true, provider: true, provider_user_id: true, created_at: true } as const;

/** A user's linked identities, oldest link first. */
export async function listIdentities(ctx: Context, userId: string, query: PageQuery) {
  const { db } = ctx;
  await requireUser(db, userId);
  return paginate(query, oldestFirst, (w) =>
    db.userOauthIdentity.findMany({
      where: { user_id: userId, ...w.after },
      select: IDENTITY_SELECT,
      orderBy: w.orderBy,
      take: w.take,
    }),
  );
}

/**
 * Unlinks an identity: signing in with it no longer reaches this user, and the user's sessions end.
 * Answers the removed link.
 */
export async function unlinkIdentity(ctx: Context, userId: string, identityId: string) {
  const { db } = ctx;
  await requireUser(db, userId);
  await requireOutranksUser(ctx, userId);
  return withAccessChange(db, async (tx) => {
    const identity = await tx.userOauthIdentity.findFirst({
      where: { id: identityId, user_id: userId },
      select: IDENTITY_SELECT,
    });
    if (!identity) throw notFound("identity");
    await tx.userOauthIdentity.delete({ where: { id: identityId } });
    return { result: identity, event: await endSessions(tx, userId) };
  });
}
