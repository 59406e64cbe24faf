import "server-only";
import {
  acceptedInvitationSchema,
  acceptInvitationInput,
  createInvitationInput,
  invitationListSchema,
  invitationParams,
  invitationSchema,
  invitationWithLinkSchema,
  listInvitationsQuery,
  resendInvitationInput,
  signUpWithInvitationInput,
} from "@/lib/schemas/invitations";
import { orgIdParams } from "@/lib/schemas/organizations";
import { systemActor } from "@/server/auth/actor";
import {
  acceptInvitation,
  createInvitation,
  getInvitation,
  listInvitations,
  resendInvitation,
  revokeInvitation,
  signUpWithInvitation,
} from "@/server/services/invitations/service";
import { defineOperation, inOrganization } from "./operation";

// Invitations to join an organization (svc:org:invitations:write, dangerous: console sessions
// only), and the two doors of accepting one: a signed-in user's, and a new account's.

const tag = "Invitations";
const { BASE, ONE, read, write } = inOrganization("invitations", "invitation_id", {
  read: "svc:org:invitations:read",
  write: "svc:org:invitations:write",
});
const LINK_NOTE =
  "`accept_url` holds the token: it is in this answer only (the token is stored as a SHA-256 hash). The email to the address carries it too when SMTP is configured (`delivery`).";
/** Tries of a token per client address per minute, at each door. */
const ACCEPT_LIMIT = { requests: 20, windowSeconds: 60 };
const accepted = (result: { invitation_id: string; org_id: string }) => ({
  target: { type: "invitation", id: result.invitation_id },
  orgId: result.org_id,
});

export const invitationOperations = {
  list: defineOperation({
    id: "listInvitations",
    method: "GET",
    path: BASE,
    tag,
    summary: "An organization's invitations",
    description:
      "Newest first. `status` filters (a pending invitation past its expiry is `expired`); `q` matches the email.",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listInvitationsQuery,
    response: invitationListSchema,
    handler: ({ params, query, ...ctx }) => listInvitations(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createInvitation",
    method: "POST",
    path: BASE,
    tag,
    summary: "Invite an email address to the organization",
    description: `With 1 to 10 org roles, each of whose permissions the caller must hold here (403 \`scope_not_held\`). One pending invitation per address (409 \`already_invited\`); a member's address: 409 \`already_member\`. Members plus pending invitations stay within the tier's \`max_members\` (403 \`quota_exceeded\`); at most 100 invitations an hour per organization (429). ${LINK_NOTE}`,
    access: write,
    params: orgIdParams,
    body: createInvitationInput,
    response: invitationWithLinkSchema,
    secret: true,
    created: (invitation) => invitation.id,
    errors: ["not_found", "already_invited", "already_member", "quota_exceeded", "scope_not_held", "rate_limited"],
    handler: ({ params, body, ...ctx }) => createInvitation(ctx, params.org_id, body),
  }),
  get: defineOperation({
    id: "getInvitation",
    method: "GET",
    path: ONE,
    tag,
    summary: "One invitation",
    access: read,
    params: invitationParams,
    response: invitationSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getInvitation(ctx, params.org_id, params.invitation_id),
  }),
  resend: defineOperation({
    id: "resendInvitation",
    method: "POST",
    path: `${ONE}/resend`,
    tag,
    summary: "Send a pending invitation again, with a new link",
    description: `A new token and expiry: the previous link stops working. Counts against the 100 an hour. ${LINK_NOTE}`,
    access: write,
    params: invitationParams,
    body: resendInvitationInput,
    response: invitationWithLinkSchema,
    secret: true,
    errors: ["not_found", "conflict", "scope_not_held", "rate_limited"],
    handler: ({ params, body, ...ctx }) => resendInvitation(ctx, params.org_id, params.invitation_id, body),
  }),
  revoke: defineOperation({
    id: "revokeInvitation",
    method: "DELETE",
    path: ONE,
    tag,
    summary: "Revoke a pending invitation",
    description: "Its link stops working at once. Answers the revoked invitation; one no longer pending: 409.",
    access: write,
    params: invitationParams,
    response: invitationSchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, ...ctx }) => revokeInvitation(ctx, params.org_id, params.invitation_id),
  }),
  accept: defineOperation({
    id: "acceptInvitation",
    method: "POST",
    path: "/api/v1/invitations/accept",
    tag,
    summary: "Accept an invitation as the signed-in user",
    description:
      "Console session only. The user's verified email must be the invitation's (403 otherwise, nothing changes); they become a member with its roles. An expired, revoked, used or unknown token: 404, all alike. At most 20 calls per minute per client address.",
    access: "session",
    addressLimit: { name: "invitation-accept", ...ACCEPT_LIMIT },
    body: acceptInvitationInput,
    response: acceptedInvitationSchema,
    audits: accepted,
    errors: ["not_found", "forbidden", "rate_limited"],
    handler: ({ body, ...ctx }) => acceptInvitation(ctx, body.token),
  }),
  signUp: defineOperation({
    id: "signUpWithInvitation",
    method: "POST",
    path: "/api/v1/invitations/sign-up",
    tag,
    summary: "Create an account from an invitation, and join",
    description:
      "No credentials: the token is the right. The account gets the invitation's email (verified when the invitation was delivered by email), then joins with its roles; sign in afterwards. An address that already has an account: 409. An unusable token: 404, all alike. At most 20 calls per minute per client address.",
    access: "public",
    // Called by the link's page over REST, signed out: the console's procedures need a session.
    console: false,
    addressLimit: { name: "invitation-sign-up", ...ACCEPT_LIMIT },
    body: signUpWithInvitationInput,
    response: acceptedInvitationSchema,
    audits: accepted,
    errors: ["not_found", "conflict", "rate_limited"],
    handler: ({ body, ...ctx }) => signUpWithInvitation(ctx.actingAs(systemActor("invitation-sign-up")), body),
  }),
};
