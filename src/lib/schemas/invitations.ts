import { z } from "zod";
import { id, list, listOf, moment, pageQuery, searchTerm, text } from "./common";
import { emailAddress, password, username } from "./users";

// Invitations to join an organization, and the two doors of accepting one.

const INVITATION_STATUSES = ["pending", "accepted", "revoked", "expired"] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
const INVITATION_DELIVERIES = ["queued", "sent", "failed", "not_configured"] as const;
const MAX_INVITATION_ROLES = 10;
const DEFAULT_INVITATION_DAYS = 7;
const MAX_INVITATION_DAYS = 30;
/** A token is 32 random bytes in base62: 43 characters. */
const INVITATION_TOKEN_LENGTH = 43;

export const invitationParams = z.strictObject({ org_id: id, invitation_id: id });

export const createInvitationInput = z
  .strictObject({
    email: emailAddress,
    role_ids: z
      .array(id)
      .min(1)
      .max(MAX_INVITATION_ROLES)
      .refine((ids) => new Set(ids).size === ids.length, "must not repeat a role")
      .describe("Org roles of this organization the invitee receives on accepting."),
    expires_in_days: z.number().int().min(1).max(MAX_INVITATION_DAYS).default(DEFAULT_INVITATION_DAYS),
  })
  .meta({
    examples: [{ email: "ada@example.com", role_ids: ["0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70"], expires_in_days: 7 }],
  });
export type CreateInvitationInput = z.output<typeof createInvitationInput>;

export const resendInvitationInput = z.strictObject({
  expires_in_days: z.number().int().min(1).max(MAX_INVITATION_DAYS).default(DEFAULT_INVITATION_DAYS),
});

export const listInvitationsQuery = pageQuery.extend({
  status: z.enum(INVITATION_STATUSES).optional(),
  q: searchTerm("Matches the email address, case aside."),
});
export type ListInvitationsQuery = z.output<typeof listInvitationsQuery>;

const roleRef = z.object({ id: z.uuid(), name: text() });

const EXAMPLE_INVITATION = {
  id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b71",
  org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
  email: "ada@example.com",
  roles: [{ id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b", name: "org_member" }],
  status: "pending",
  delivery: "sent",
  expires_at: "2026-01-22T09:30:00.000Z",
  invited_by: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
  accepted_at: null,
  accepted_by: null,
  revoked_at: null,
  created_at: "2026-01-15T09:30:00.000Z",
  updated_at: "2026-01-15T09:30:00.000Z",
};

export const invitationSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    email: text(),
    roles: list(roleRef, MAX_INVITATION_ROLES),
    status: z.enum(INVITATION_STATUSES).describe("A pending invitation past its expires_at is expired."),
    delivery: z
      .enum(INVITATION_DELIVERIES)
      .describe("What became of the email carrying the link; not_configured: no SMTP, the link is to be copied."),
    expires_at: moment,
    invited_by: z.uuid().nullable(),
    accepted_at: moment.nullable(),
    accepted_by: z.uuid().nullable(),
    revoked_at: moment.nullable(),
    created_at: moment,
    updated_at: moment,
  })
  .meta({ id: "Invitation", examples: [EXAMPLE_INVITATION] });
export const invitationListSchema = listOf(invitationSchema);
export type Invitation = z.input<typeof invitationSchema>;

export const invitationWithLinkSchema = invitationSchema
  .extend({
    accept_url: z
      .url()
      .max(2048)
      .describe("The link to accept, holding the token: in this answer only (it is stored as a hash)."),
  })
  .meta({
    id: "InvitationWithLink",
    examples: [
      {
        ...EXAMPLE_INVITATION,
        accept_url: "https://svc.example.com/console/invitations/3xQd0vB1mZ7kR2pL9sT4uW6yA8cE0gH5jK7nP9rS1tV",
      },
    ],
  });

export type InvitationWithLink = z.input<typeof invitationWithLinkSchema>;

const token = z
  .string()
  .max(INVITATION_TOKEN_LENGTH * 2)
  .describe("The token from the invitation's link.");

export const acceptInvitationInput = z.strictObject({ token });
export const signUpWithInvitationInput = z.strictObject({ token, username, password }).meta({
  examples: [
    { token: "4kXq9Vb2Lm7Rt0Zp3Wc8Ny5Hd1Gf6Js2Ka9Qe4Tu7Bo", username: "ada", password: "correct horse battery" },
  ],
});

export const acceptedInvitationSchema = z
  .object({
    invitation_id: z.uuid(),
    org_id: z.uuid(),
    organization_name: text(),
    user_id: z.uuid(),
    username: text(),
    roles: list(roleRef, MAX_INVITATION_ROLES),
  })
  .meta({
    id: "AcceptedInvitation",
    examples: [
      {
        invitation_id: EXAMPLE_INVITATION.id,
        org_id: EXAMPLE_INVITATION.org_id,
        organization_name: "Acme",
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a23",
        username: "ada",
        roles: EXAMPLE_INVITATION.roles,
      },
    ],
  });
export type AcceptedInvitation = z.input<typeof acceptedInvitationSchema>;
