import "server-only";
import { randomUUID } from "node:crypto";
import { SIGN_IN_ACTION, SSO_JOIN_ACTION } from "@/lib/audit-actions";
import { SSO_IDENTITY_PREFIX } from "@/lib/identities";
import type { SsoErrorCode } from "@/lib/sso";
import { systemActor } from "@/server/auth/actor";
import { createUserFor } from "@/server/auth/oauth";
import type { Context } from "@/server/db/context";
import { mapDatabaseError } from "@/server/db/errors";
import { DomainError } from "@/server/errors";
import type { RequestFacts } from "@/server/http/client";
import { log } from "@/server/log";
import { recordAlone, recordChange } from "@/server/services/audit/record";
import { joinWithRole } from "@/server/services/memberships/join";
import type { ConnectionRow } from "./connections";

// Where an SSO round trip ends: the person the IdP vouched for becomes one of our users — the one
// already linked to this connection, else the user with that verified email (never one holding a
// system role), else a new user made just in time — and a member of the connection's organization
// with its default role. Each sign-in and each refusal is audited; a refusal's details go to the
// trail only, under an id the sign-in page shows.

export const SSO_SIGN_IN = systemActor("sso");

/** The person an identity provider vouched for, as the protocol modules read them. */
export interface AssertedIdentity {
  /** OIDC `sub`, or the SAML NameID. */
  subject: string;
  email: string | undefined;
  name?: string;
}

/** A refused SSO sign-in: `code` is what the sign-in page says; `detail` is for the audit trail only. */
export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoErrorCode,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "SsoRefusal";
  }
}

/** How a connection's identities are named among linked identities: one namespace per connection. */
const ssoProviderName = (connectionId: string) => `${SSO_IDENTITY_PREFIX}${connectionId}`;

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

/** The connection covering an email's (or a bare domain's) domain: enabled, and the domain still verified by its organization. */
export async function connectionForDomain(ctx: Context, domain: string): Promise<ConnectionRow | null> {
  const { db } = ctx;
  const candidates = await db.ssoConnection.findMany({
    where: { enabled: true, domains: { has: domain }, org: { status: "active" } },
    orderBy: { created_at: "asc" },
  });
  for (const connection of candidates) {
    const verified = await db.organizationDomain.count({
      where: { org_id: connection.org_id, domain, status: "verified" },
    });
    if (verified > 0) return connection;
  }
  return null;
}

/** The connection a sign-in comes back to: enabled and of a live, active organization. */
export async function connectionById(ctx: Context, connectionId: string): Promise<ConnectionRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(connectionId)) return null;
  return ctx.db.ssoConnection.findFirst({
    where: { id: connectionId, enabled: true, org: { status: "active" } },
  });
}

async function linkedUser(ctx: Context, connection: ConnectionRow, subject: string): Promise<string | null> {
  const identity = await ctx.includingDeleted().userOauthIdentity.findUnique({
    where: { provider_provider_user_id: { provider: ssoProviderName(connection.id), provider_user_id: subject } },
    select: { user: { select: { id: true, is_deleted: true, kind: true } } },
  });
  if (!identity) return null;
  if (identity.user.is_deleted || identity.user.kind !== "human")
    throw new SsoRefusal("account_not_linkable", "the user linked to this identity is deleted");
  return identity.user.id;
}

/**
 * A user holding a system role signs in with a password (and their second factor), never through an
 * organization's IdP: not when linking, nor later, once linked, if they gained one since.
 */
async function refuseSystemRoleHolder(ctx: Context, userId: string): Promise<void> {
  const systemRoles = await ctx.db.userRole.count({
    where: { user_id: userId, org_id: null, role: { is_deleted: false } },
  });
  if (systemRoles > 0)
    throw new SsoRefusal("account_not_linkable", "the user holds a system role; SSO does not sign such users in");
}

/** The user with this verified email, linked to the connection; none when nobody has it. */
async function linkByVerifiedEmail(
  ctx: Context,
  connection: ConnectionRow,
  subject: string,
  email: string,
): Promise<string | null> {
  const { db } = ctx;
  const user = await db.user.findFirst({
    where: { email, kind: "human" },
    select: { id: true, email_verified_at: true },
  });
  if (!user) return null;
  if (!user.email_verified_at)
    throw new SsoRefusal("account_not_linkable", "a user has this email, but has not verified it");
  const systemRoles = await db.userRole.count({
    where: { user_id: user.id, org_id: null, role: { is_deleted: false } },
  });
  if (systemRoles > 0)
    throw new SsoRefusal("account_not_linkable", "the user with this email holds a system role; SSO does not link it");
  try {
    await db.userOauthIdentity.create({
      data: { user_id: user.id, provider: ssoProviderName(connection.id), provider_user_id: subject },
    });
  } catch (error) {
    if (mapDatabaseError(error)?.code !== "conflict") throw error;
    // Linked by a concurrent sign-in meanwhile: whoever that linked answers.
    return linkedUser(ctx, connection, subject);
  }
  log.info("SSO identity linked by verified email", { user_id: user.id, connection_id: connection.id });
  return user.id;
}

/** Makes the user a member with the connection's default role, when not one already; audited as member.joined. */
async function joinJustInTime(
  ctx: Context,
  connection: ConnectionRow,
  userId: string,
  request: RequestFacts,
): Promise<void> {
  try {
    await ctx.transaction(async (tx) => {
      if (!(await joinWithRole(tx.db, connection.org_id, userId, connection.default_role_id))) return;
      await recordChange(tx, {
        actor: tx.actor,
        action: SSO_JOIN_ACTION,
        outcome: "success",
        target: { type: "user", id: userId },
        orgId: connection.org_id,
        changes: {
          role_id: { old: null, new: connection.default_role_id },
          sso_connection_id: { old: null, new: connection.id },
        },
        request,
        eventType: "member.joined",
      });
    });
  } catch (error) {
    if (error instanceof DomainError && error.code === "quota_exceeded")
      throw new SsoRefusal("membership_refused", "the organization is at its max_members");
    throw error;
  }
}

/**
 * Our user for the person the connection's IdP vouched for, made a member of the connection's
 * organization. The email must be at one of the connection's domains: an IdP speaks for its own
 * organization's people only.
 */
export async function admitSsoUser(
  ctx: Context,
  connection: ConnectionRow,
  asserted: AssertedIdentity,
  request: RequestFacts,
): Promise<string> {
  const email = asserted.email?.trim().toLowerCase();
  if (!email || !email.includes("@")) throw new SsoRefusal("invalid_response", "the identity provider sent no email");
  if (!connection.domains.includes(domainOf(email)))
    throw new SsoRefusal("email_not_covered", `the identity provider vouched for an address at ${domainOf(email)}`);
  // The organization must still hold the domain: one that failed its re-check admits nobody.
  const held = await ctx.db.organizationDomain.count({
    where: { org_id: connection.org_id, domain: domainOf(email), status: "verified" },
  });
  if (held === 0) throw new SsoRefusal("email_not_covered", `${domainOf(email)} is no longer a verified domain`);
  const userId =
    (await linkedUser(ctx, connection, asserted.subject)) ??
    (await linkByVerifiedEmail(ctx, connection, asserted.subject, email)) ??
    (await createUserFor(ssoProviderName(connection.id), asserted.subject, email, {
      name: asserted.name,
    }).catch((error: unknown) => {
      // The email is taken by a user made meanwhile, or a deleted one: no second account for it.
      if (mapDatabaseError(error)?.code === "conflict")
        throw new SsoRefusal("account_not_linkable", "another account holds this email");
      throw error;
    }));
  await refuseSystemRoleHolder(ctx, userId);
  await joinJustInTime(ctx, connection, userId, request);
  return userId;
}

/** An SSO sign-in in the audit trail: the connection as its target, the user when known. */
export async function recordSsoSignIn(
  ctx: Context,
  connection: Pick<ConnectionRow, "id" | "org_id"> | null,
  userId: string | null,
  request: RequestFacts,
  refusal?: SsoRefusal,
): Promise<void> {
  await recordAlone(ctx.db, {
    actor: null,
    userId,
    action: SIGN_IN_ACTION,
    outcome: refusal ? "denied" : "success",
    target: { type: "sso_connection", id: connection?.id ?? null },
    orgId: connection?.org_id ?? null,
    changes: refusal ? { refusal: { old: null, new: `${refusal.code}: ${refusal.detail}` } } : null,
    request,
  });
}

/** The id a refusal is quoted by: the request's own id, so the trail and the logs find it. */
export const errorIdOf = (request: RequestFacts) => request.requestId ?? randomUUID();
