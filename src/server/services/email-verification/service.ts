import "server-only";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import type { UserActor } from "@/server/auth/actor";
import { generateLinkToken, hashLinkToken, LINK_TOKEN_SHAPE, sameTokenHash } from "@/server/auth/link-tokens";
import { queueEmail } from "@/server/email/outbox";
import type { EmailOutcome } from "@/server/email/outcomes";
import { env } from "@/server/env";
import { DomainError } from "@/server/errors";
import type { EmailVerificationSent, EmailVerified } from "@/lib/schemas/email-verification";

// Verifying a user's email with a link sent to it: one live link per user (a new one replaces it),
// 24 hours, single use, and only for the address it was sent to. The token exists in the clear in
// the email alone (the queued message is sealed); the table keeps its SHA-256. See
// docs/access.md#verified-emails.

const EMAIL_VERIFICATION_KIND = "email_verification";
export const LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A user asks for at most one link a minute: each is an email to their address. */
const RESEND_AFTER_MS = 60 * 1000;
export const VERIFY_EMAIL_PATH = "/console/verify-email/";

type Tx = Parameters<Parameters<DataLayer["$transaction"]>[0]>[0];

/** Drops the user's pending link: their email changed, or it is verified another way. */
export async function forgetEmailVerification(db: Pick<DataLayer, "emailVerification"> | Tx, userId: string) {
  await db.emailVerification.deleteMany({ where: { user_id: userId } });
}

function notConfigured(what: string): DomainError {
  return new DomainError("conflict", `Email is not configured on this platform (${what}): no link can be sent.`);
}

/** Sends the signed-in user a link to their current email; a link sent before dies. */
export async function sendEmailVerification(ctx: Context<UserActor>): Promise<EmailVerificationSent> {
  const { db, actor } = ctx;
  const { SMTP_URL, AUTH_URL } = env();
  if (!SMTP_URL) throw notConfigured("SMTP_URL is not set");
  if (!AUTH_URL) throw notConfigured("AUTH_URL, the console's public address, is not set");
  const user = await db.user.findUniqueOrThrow({
    where: { id: actor.userId },
    select: { email: true, email_verified_at: true },
  });
  if (user.email === null) throw new DomainError("conflict", "Your account has no email to verify.");
  if (user.email_verified_at !== null) throw new DomainError("conflict", "Your email is already verified.");
  const email = user.email;
  return ctx.transaction(async (tx) => {
    // The row is locked for the check, so two requests at once send one link.
    const [previous] = await tx.db.$queryRaw<{ created_at: Date }[]>`
      SELECT created_at FROM email_verifications WHERE user_id = ${actor.userId}::uuid FOR UPDATE`;
    const now = Date.now();
    if (previous && now - previous.created_at.getTime() < RESEND_AFTER_MS) {
      const retryAfter = Math.ceil((previous.created_at.getTime() + RESEND_AFTER_MS - now) / 1000);
      throw new DomainError("rate_limited", "A link was sent less than a minute ago. Check your inbox, or try again.", {
        retry_after_seconds: Math.max(retryAfter, 1),
      });
    }
    const { token, hash } = generateLinkToken();
    const created_at = new Date(now);
    const expires_at = new Date(now + LINK_LIFETIME_MS);
    const row = { email, token_hash: hash, delivery: "queued", created_at, expires_at };
    await tx.db.emailVerification.upsert({
      where: { user_id: actor.userId },
      create: { user_id: actor.userId, ...row },
      update: row,
    });
    const link = new URL(`${VERIFY_EMAIL_PATH}${token}`, AUTH_URL).href;
    const delivery = await queueEmail(
      tx,
      {
        to: email,
        subject: "Verify your email for svc",
        text: `Open this link within 24 hours to verify that ${email} is yours:\n\n${link}\n\nIf you did not ask for it, ignore this email.`,
        html: `<p>Open this link within 24 hours to verify that ${escapeHtml(email)} is yours:</p><p><a href="${link}">Verify my email</a></p><p>If you did not ask for it, ignore this email.</p>`,
      },
      { kind: EMAIL_VERIFICATION_KIND, id: actor.userId },
    );
    // Checked above; the queue answers this only when SMTP_URL vanished since.
    if (delivery === "not_configured") throw notConfigured("SMTP_URL is not set");
    if (delivery === "failed")
      throw new DomainError("unavailable", "The email queue is not running here; nothing was sent.");
    return { email, sent_at: created_at, expires_at };
  });
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const UNUSABLE = "This link cannot be used: it is expired, used, replaced by a newer one, or unknown.";

/**
 * Verifies the email a link was sent to, with the link's token and nothing else (whoever holds the
 * token received the email). Used, expired, replaced, unknown, or for an address the user no longer
 * has: the same 404.
 */
export async function confirmEmailVerification(ctx: Context, token: string): Promise<EmailVerified> {
  if (!LINK_TOKEN_SHAPE.test(token)) throw new DomainError("not_found", UNUSABLE);
  const presented = hashLinkToken(token);
  return ctx.transaction(async (tx) => {
    const [link] = await tx.db.$queryRaw<{ user_id: string; email: string; token_hash: string; expires_at: Date }[]>`
      SELECT user_id, email, token_hash, expires_at FROM email_verifications
      WHERE token_hash = ${presented} FOR UPDATE`;
    if (!link || !sameTokenHash(link.token_hash, presented) || link.expires_at.getTime() <= Date.now())
      throw new DomainError("not_found", UNUSABLE);
    const verified = await tx.db.user.updateMany({
      where: { id: link.user_id, email: link.email, is_deleted: false },
      data: { email_verified_at: new Date() },
    });
    if (verified.count === 0) throw new DomainError("not_found", UNUSABLE);
    // Single use.
    await tx.db.emailVerification.delete({ where: { user_id: link.user_id } });
    return { email: link.email, verified: true as const };
  });
}

/** The email worker's report on a link's message. */
export async function recordEmailVerificationDelivery(ctx: Context, userId: string, outcome: EmailOutcome) {
  await ctx.db.emailVerification.updateMany({ where: { user_id: userId }, data: { delivery: outcome } });
}
