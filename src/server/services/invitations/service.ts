import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import { isPermission } from "@/lib/permissions";
import type { z } from "zod";
import type {
  AcceptedInvitation,
  CreateInvitationInput,
  invitationSchema,
  InvitationStatus,
  ListInvitationsQuery,
} from "@/lib/schemas/invitations";
import { requireHeldByActor } from "@/server/auth/escalation";
import { hashPassword } from "@/server/auth/passwords";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { queueEmail } from "@/server/email/outbox";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { countOrganizationInvitation } from "@/server/limits/api-limits";
import { withAccessChange } from "@/server/services/access-changes";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import { lockOrganization, requireWithinQuota } from "@/server/services/quotas";
import { expireInvitations } from "./expiry";
import { invitationMessage } from "./message";
import { generateLinkToken, hashLinkToken, LINK_TOKEN_SHAPE, sameTokenHash } from "@/server/auth/link-tokens";
import { acceptUrl } from "./token";

// Invitations: an org admin invites an address with some of the organization's roles; whoever
// holds the link's token accepts (signed in with that verified address) or makes an account with it.
// States go pending → accepted | revoked | expired, never back. See docs/access.md#invitations.

type Db = Omit<DataLayer, "$transaction" | "$connect" | "$disconnect" | "$on" | "$extends"> &
  Pick<DataLayer, "$queryRaw" | "$executeRaw">;
type Row = Prisma.InvitationGetPayload<object>;
type Invitation = z.output<typeof invitationSchema>;

const DAY_MS = 86_400_000;

/** The state a reader sees: a pending invitation past its expiry is expired, marked yet or not. */
const statusOf = (row: Pick<Row, "status" | "expires_at">, now = new Date()): InvitationStatus =>
  row.status === "pending" && row.expires_at <= now ? "expired" : (row.status as InvitationStatus);

async function rolesById(db: Pick<DataLayer, "role">, ids: readonly string[]) {
  const roles = await db.role.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } });
  return new Map(roles.map((r) => [r.id, r]));
}

async function toInvitations(db: Pick<DataLayer, "role">, rows: Row[]): Promise<Invitation[]> {
  const names = await rolesById(
    db,
    rows.flatMap((r) => r.role_ids),
  );
  return rows.map((row) => ({
    id: row.id,
    org_id: row.org_id,
    email: row.email,
    roles: row.role_ids.flatMap((id) => {
      const role = names.get(id);
      return role ? [role] : [];
    }),
    status: statusOf(row),
    delivery: row.delivery as Invitation["delivery"],
    expires_at: row.expires_at,
    invited_by: row.invited_by,
    accepted_at: row.accepted_at,
    accepted_by: row.accepted_by,
    revoked_at: row.revoked_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }));
}

const toInvitation = async (db: Pick<DataLayer, "role">, row: Row) => (await toInvitations(db, [row]))[0]!;

/** The roles an invitation may carry: org roles that exist; the actor must hold all their permissions there. */
async function requireGrantableRoles(ctx: Context, db: Pick<DataLayer, "role">, orgId: string, roleIds: string[]) {
  const roles = await db.role.findMany({
    where: { id: { in: roleIds }, scope: "org", is_deleted: false },
    select: { id: true, permissions: { select: { permission: true } } },
  });
  const found = new Set(roles.map((r) => r.id));
  const missing = roleIds.flatMap((id, i) => (found.has(id) ? [] : [i]));
  if (missing.length > 0)
    throw validationFailed(
      missing.map((i) => ({ path: `role_ids.${i}`, message: "is not an org role" })),
      "Each role must be an org role.",
    );
  requireHeldByActor(
    ctx.actor,
    roles.flatMap((r) => r.permissions.map((p) => p.permission)).filter(isPermission),
    orgId,
  );
}

async function inviterName(ctx: Context): Promise<string> {
  return ctx.actor.kind === "system" ? "The platform's administrators" : (ctx.actor.displayName ?? ctx.actor.username);
}

/** Queues the email with the link (or records that none can be sent), in the change's transaction. */
async function sendLink(ctx: Context, tx: Db, row: Row, token: string, organization: string) {
  const message = invitationMessage({
    to: row.email,
    organization,
    inviter: await inviterName(ctx),
    link: acceptUrl(token),
    expiresAt: row.expires_at,
  });
  const delivery = await queueEmail({ db: tx as DataLayer, afterCommit: ctx.afterCommit }, message, {
    kind: "invitation",
    id: row.id,
  });
  return tx.invitation.update({ where: { id: row.id }, data: { delivery } });
}

const orgName = (org: { name: string; display_name: string | null }) => org.display_name ?? org.name;

export async function createInvitation(ctx: Context, orgId: string, input: CreateInvitationInput) {
  return ctx.transaction(async (change) => {
    const tx = change.db;
    await lockOrganization(tx, orgId);
    const org = await requireOrganization(tx, orgId);
    await requireGrantableRoles(ctx, tx, orgId, input.role_ids);
    const email = input.email.toLowerCase();
    const member = await tx.userOrgMembership.findFirst({
      where: { org_id: orgId, user: { is_deleted: false, email: { equals: email, mode: "insensitive" } } },
      select: { id: true },
    });
    if (member)
      throw new DomainError("already_member", "A user with this email address is already a member.", {
        errors: [{ path: "email", message: "belongs to a member" }],
      });
    // An expired invitation to the address must not count as pending: mark those due, with their events.
    await expireInvitations(change, orgId);
    const pending = await tx.invitation.findFirst({
      where: { org_id: orgId, status: "pending", email: { equals: email, mode: "insensitive" } },
      select: { id: true },
    });
    if (pending)
      throw new DomainError("already_invited", "This address already has a pending invitation: resend or revoke it.", {
        errors: [{ path: "email", message: "has a pending invitation" }],
      });
    const members = await tx.userOrgMembership.count({ where: { org_id: orgId, user: { is_deleted: false } } });
    const invited = await tx.invitation.count({ where: { org_id: orgId, status: "pending" } });
    await requireWithinQuota(tx, org.subscription_tier, "max_members", members + invited);
    await countOrganizationInvitation(orgId);
    const { token, hash } = generateLinkToken();
    const created = await tx.invitation.create({
      data: {
        org_id: orgId,
        email,
        role_ids: input.role_ids,
        token_hash: hash,
        expires_at: new Date(Date.now() + input.expires_in_days * DAY_MS),
        invited_by: ctx.actor.kind === "system" ? null : ctx.actor.userId,
      },
    });
    const row = await sendLink(ctx, tx, created, token, orgName(org));
    return { ...(await toInvitation(tx, row)), accept_url: acceptUrl(token) };
  });
}

async function requireInvitation(db: Pick<DataLayer, "invitation">, orgId: string, invitationId: string) {
  const row = await db.invitation.findFirst({ where: { id: invitationId, org_id: orgId } });
  if (!row) throw notFound("invitation");
  return row;
}

export async function getInvitation(ctx: Context, orgId: string, invitationId: string) {
  await requireOrganization(ctx.db, orgId);
  return toInvitation(ctx.db, await requireInvitation(ctx.db, orgId, invitationId));
}

export async function listInvitations(ctx: Context, orgId: string, query: ListInvitationsQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const now = new Date();
  const byStatus: Prisma.InvitationWhereInput =
    query.status === "pending"
      ? { status: "pending", expires_at: { gt: now } }
      : query.status === "expired"
        ? { OR: [{ status: "expired" }, { status: "pending", expires_at: { lte: now } }] }
        : query.status
          ? { status: query.status }
          : {};
  const where: Prisma.InvitationWhereInput = {
    org_id: orgId,
    ...byStatus,
    ...(query.q ? { email: { contains: query.q, mode: "insensitive" } } : {}),
  };
  const page = await paginate(query, newestFirst, (w) =>
    db.invitation.findMany({ where: { AND: [where, w.after] }, orderBy: w.orderBy, take: w.take }),
  );
  return { data: await toInvitations(db, page.data), next_cursor: page.next_cursor };
}

/** Only a pending invitation can be resent or revoked: anything else is a conflict. */
function requirePending(row: Row, doing: string) {
  const status = statusOf(row);
  if (status !== "pending")
    throw new DomainError("conflict", `The invitation is ${status}: it cannot be ${doing}.`, {
      errors: [{ path: "invitation_id", message: `is ${status}` }],
    });
}

export async function resendInvitation(
  ctx: Context,
  orgId: string,
  invitationId: string,
  input: { expires_in_days: number },
) {
  return ctx.transaction(async ({ db: tx }) => {
    const org = await requireOrganization(tx, orgId);
    const row = await requireInvitation(tx, orgId, invitationId);
    requirePending(row, "resent");
    await requireGrantableRoles(ctx, tx, orgId, row.role_ids);
    await countOrganizationInvitation(orgId);
    // A new token: the old link stops working with this change.
    const { token, hash } = generateLinkToken();
    const renewed = await tx.invitation.update({
      where: { id: row.id },
      data: { token_hash: hash, expires_at: new Date(Date.now() + input.expires_in_days * DAY_MS) },
    });
    const sent = await sendLink(ctx, tx, renewed, token, orgName(org));
    return { ...(await toInvitation(tx, sent)), accept_url: acceptUrl(token) };
  });
}

export async function revokeInvitation(ctx: Context, orgId: string, invitationId: string) {
  return ctx.transaction(async ({ db: tx }) => {
    await requireOrganization(tx, orgId);
    const row = await requireInvitation(tx, orgId, invitationId);
    requirePending(row, "revoked");
    const revoked = await tx.invitation.update({
      where: { id: row.id },
      data: { status: "revoked", revoked_at: new Date() },
    });
    return toInvitation(tx, revoked);
  });
}

// Accepting ------------------------------------------------------------------------------------

/** One answer for every token that cannot be used, so none tells an attacker more than another. */
const unusable = () =>
  new DomainError(
    "not_found",
    "This invitation cannot be used: it may have expired, been revoked or accepted already, or the link is incomplete.",
  );

/** The pending invitation of `token`, locked for the change; unusable ones all answer alike. */
async function usableInvitation(tx: Db, token: string): Promise<Row> {
  if (!LINK_TOKEN_SHAPE.test(token)) throw unusable();
  const [locked] = await tx.$queryRaw<{ id: string; token_hash: string }[]>`
    SELECT i.id, i.token_hash FROM invitations i JOIN organizations o ON o.id = i.org_id AND NOT o.is_deleted
    WHERE i.token_hash = ${hashLinkToken(token)} AND i.status = 'pending' AND i.expires_at > now() FOR UPDATE OF i`;
  if (!locked || !sameTokenHash(locked.token_hash, hashLinkToken(token))) throw unusable();
  return tx.invitation.findUniqueOrThrow({ where: { id: locked.id } });
}

/** Makes `userId` a member with the invitation's roles (those still there), and marks it accepted. */
async function join(tx: Db, row: Row, user: { id: string; username: string }): Promise<AcceptedInvitation> {
  const org = await requireOrganization(tx, row.org_id);
  await tx.userOrgMembership.createMany({ data: [{ user_id: user.id, org_id: row.org_id }], skipDuplicates: true });
  const roles = await tx.role.findMany({
    where: { id: { in: row.role_ids }, scope: "org", is_deleted: false },
    select: { id: true, name: true },
  });
  await tx.userRole.createMany({
    data: roles.map((r) => ({ user_id: user.id, role_id: r.id, org_id: row.org_id })),
    skipDuplicates: true,
  });
  await tx.invitation.update({
    where: { id: row.id },
    data: { status: "accepted", accepted_at: new Date(), accepted_by: user.id },
  });
  return {
    invitation_id: row.id,
    org_id: row.org_id,
    organization_name: orgName(org),
    user_id: user.id,
    username: user.username,
    roles,
  };
}

/** A signed-in user accepts an invitation to their own verified address. */
export async function acceptInvitation(ctx: Context, token: string): Promise<AcceptedInvitation> {
  const { actor } = ctx;
  if (actor.kind === "system") throw new DomainError("unauthenticated", "Sign in to accept an invitation.");
  return withAccessChange(ctx.db, async (tx) => {
    const row = await usableInvitation(tx, token);
    const user = await tx.user.findUniqueOrThrow({
      where: { id: actor.userId },
      select: { id: true, username: true, email: true, email_verified_at: true },
    });
    if (user.email?.toLowerCase() !== row.email)
      throw new DomainError(
        "forbidden",
        "This invitation is for another email address. Sign in as that address, or ask for an invitation to yours.",
      );
    if (!user.email_verified_at)
      throw new DomainError(
        "forbidden",
        "Your email address is not verified yet. Verify it from Your account, then open the link again.",
      );
    return { result: await join(tx, row, user), event: { userId: user.id } };
  });
}

/** Someone without an account makes one with the invitation's address, and joins. */
export async function signUpWithInvitation(
  ctx: Context,
  input: { token: string; username: string; password: string },
): Promise<AcceptedInvitation> {
  const password_hash = await hashPassword(input.password);
  return withAccessChange(ctx.db, async (tx) => {
    const row = await usableInvitation(tx, input.token);
    const taken = await tx.user.findFirst({
      where: { email: { equals: row.email, mode: "insensitive" } },
      select: { id: true },
    });
    if (taken)
      throw new DomainError(
        "conflict",
        "An account with this email address exists: sign in to accept the invitation.",
        { errors: [{ path: "token", message: "is for an address that has an account" }] },
      );
    const user = await tx.user.create({
      data: {
        username: input.username,
        email: row.email,
        password_hash,
        // The link reached this person through that mailbox only when the email was sent.
        email_verified_at: row.delivery === "sent" ? new Date() : null,
      },
      select: { id: true, username: true },
    });
    return { result: await join(tx, row, user), event: { userId: user.id } };
  });
}

// Upkeep ---------------------------------------------------------------------------------------

/** Records what became of an invitation's email (the email worker calls it). */
export async function recordInvitationDelivery(ctx: Context, invitationId: string, outcome: "sent" | "failed") {
  await ctx.db.invitation.updateMany({ where: { id: invitationId, delivery: "queued" }, data: { delivery: outcome } });
}

/** What the accept page shows of a usable invitation (null for every token that cannot be used). */
export async function previewInvitation(
  ctx: Context,
  token: string,
): Promise<{ email: string; organization: string } | null> {
  if (!LINK_TOKEN_SHAPE.test(token)) return null;
  const row = await ctx.db.invitation.findUnique({
    where: { token_hash: hashLinkToken(token) },
    select: { email: true, status: true, expires_at: true, token_hash: true, org: true },
  });
  if (!row || row.org.is_deleted || statusOf(row) !== "pending" || !sameTokenHash(row.token_hash, hashLinkToken(token)))
    return null;
  return { email: row.email, organization: orgName(row.org) };
}
