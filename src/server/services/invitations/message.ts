import "server-only";
import type { EmailMessage } from "@/server/email/outbox";

// The invitation email: who invites, to which organization, the link, and when it stops working.

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function invitationMessage(input: {
  to: string;
  organization: string;
  inviter: string;
  link: string;
  expiresAt: Date;
}): EmailMessage {
  const { to, organization, inviter, link, expiresAt } = input;
  const until = expiresAt.toUTCString();
  return {
    to,
    subject: `${inviter} invited you to join ${organization}`,
    text: [
      `${inviter} invited you to join the organization ${organization}.`,
      "",
      `Accept the invitation: ${link}`,
      "",
      `The link works once, until ${until}. If you did not expect this invitation, ignore this message.`,
    ].join("\n"),
    html: [
      `<p>${escapeHtml(inviter)} invited you to join the organization <strong>${escapeHtml(organization)}</strong>.</p>`,
      `<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>`,
      `<p>The link works once, until ${escapeHtml(until)}. If you did not expect this invitation, ignore this message.</p>`,
    ].join("\n"),
  };
}
