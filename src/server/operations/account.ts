import "server-only";
import type { Context } from "@/server/db/context";
import { z } from "zod";
import { signOutEverywhere } from "@/server/services/users/service";
import type { SessionActor, UserActor } from "@/server/auth/actor";
import { startLinking } from "@/server/session";
import { LENGTH, text } from "@/lib/schemas/common";
import {
  confirmTwoFactorInput,
  recoveryCodesSchema,
  turnOffTwoFactorInput,
  twoFactorSetupSchema,
  twoFactorStatusSchema,
} from "@/lib/schemas/two-factor";
import {
  confirmTwoFactorSetup,
  myTwoFactor,
  startTwoFactorSetup,
  turnOffTwoFactor,
} from "@/server/services/two-factor/service";
import {
  confirmEmailVerificationInput,
  emailVerificationSentSchema,
  emailVerifiedSchema,
} from "@/lib/schemas/email-verification";
import { confirmEmailVerification, sendEmailVerification } from "@/server/services/email-verification/service";
import { defineOperation } from "./operation";

// What signed-in users do for themselves, from their own console session (never through a key).

const tag = "Identity";
const TWO_FACTOR = "/api/v1/me/two-factor";

export const accountOperations = {
  linkIdentity: defineOperation({
    id: "linkIdentity",
    method: "POST",
    path: "/api/v1/me/identities/link",
    tag,
    summary: "Start linking an external account to the caller",
    description:
      "Answers where to send the browser: the provider's sign-in. Coming back, the external account is linked to the caller; one already linked to another user is refused, and the profile page says so.",
    access: "session",
    body: z.strictObject({
      provider: text(LENGTH.SHORT).min(1).describe("github, google or oidc: an enabled provider."),
    }),
    // The provider's sign-in address, as its configuration makes it.
    response: z.object({ redirect_url: text(LENGTH.TEXT) }),
    errors: ["validation_failed"],
    handler: ({ actor, body }) => startLinking(actor as SessionActor, body.provider),
  }),
  signOutEverywhere: defineOperation({
    id: "signOutEverywhere",
    method: "POST",
    path: "/api/v1/me/sign-out-everywhere",
    tag,
    summary: "End every console session of the caller",
    description: "In every process at once, this session included. API keys are not affected.",
    access: "session",
    duringTwoFactorSetup: true,
    response: z.object({ signed_out: z.literal(true) }),
    handler: (ctx) => signOutEverywhere(ctx as Context<UserActor>),
  }),
  myTwoFactor: defineOperation({
    id: "getMyTwoFactor",
    method: "GET",
    path: TWO_FACTOR,
    tag,
    summary: "The caller's two-factor authentication",
    access: "session",
    duringTwoFactorSetup: true,
    response: twoFactorStatusSchema,
    handler: (ctx) => myTwoFactor(ctx as Context<SessionActor>),
  }),
  setUpTwoFactor: defineOperation({
    id: "setUpTwoFactor",
    method: "POST",
    path: `${TWO_FACTOR}/setup`,
    tag,
    summary: "Start setting up two-factor authentication",
    description:
      "Answers a new secret (the setup key, and an otpauth:// URI for a QR code), this once; sign-in does not ask for codes until one is confirmed. Starting again replaces a setup not yet confirmed; 409 while two-factor is on.",
    access: "session",
    duringTwoFactorSetup: true,
    response: twoFactorSetupSchema,
    secret: true,
    errors: ["conflict"],
    handler: (ctx) => startTwoFactorSetup(ctx as Context<SessionActor>),
  }),
  confirmTwoFactor: defineOperation({
    id: "confirmTwoFactor",
    method: "POST",
    path: `${TWO_FACTOR}/confirm`,
    tag,
    summary: "Turn two-factor authentication on",
    description: "With a current code of the new secret. Answers ten single-use recovery codes, this once.",
    access: "session",
    duringTwoFactorSetup: true,
    body: confirmTwoFactorInput,
    response: recoveryCodesSchema,
    secret: true,
    errors: ["validation_failed", "conflict"],
    handler: ({ body, ...ctx }) => confirmTwoFactorSetup(ctx as Context<SessionActor>, body),
  }),
  turnOffTwoFactor: defineOperation({
    id: "turnOffTwoFactor",
    method: "POST",
    path: `${TWO_FACTOR}/turn-off`,
    tag,
    summary: "Turn two-factor authentication off",
    description:
      "Needs the caller's password (when it has one) and a code or a recovery code; wrong ones are throttled like sign-ins (429).",
    access: "session",
    body: turnOffTwoFactorInput,
    response: twoFactorStatusSchema,
    errors: ["validation_failed", "conflict", "rate_limited"],
    handler: ({ body, ...ctx }) => turnOffTwoFactor(ctx as Context<SessionActor>, body),
  }),
  sendEmailVerification: defineOperation({
    id: "sendEmailVerification",
    method: "POST",
    path: "/api/v1/me/email/verify",
    tag,
    summary: "Send a link that verifies the caller's email",
    description:
      "Emails the caller's current address a link, good for 24 hours and once; a link sent before stops working. The link goes only by email, never in an answer. One a minute (429 with Retry-After). 409 `conflict` when email is not configured on the platform (SMTP_URL, AUTH_URL), the caller has no email, or it is already verified.",
    access: "session",
    response: emailVerificationSentSchema,
    status: 202,
    errors: ["conflict", "rate_limited"],
    handler: (ctx) => sendEmailVerification(ctx as Context<UserActor>),
  }),
  confirmEmailVerification: defineOperation({
    id: "confirmEmailVerification",
    method: "POST",
    path: "/api/v1/email-verifications/confirm",
    tag,
    summary: "Verify an email with the token of the link sent to it",
    description:
      "No credentials: holding the token shows the email reached its owner. The console's page for the link calls this when its button is pressed (a mail scanner opening the link verifies nothing). A link expired, used, replaced by a newer one, unknown, or sent to an address the user no longer has answers the same 404.",
    access: "public",
    // Called by the link's page over REST, signed out: the console's procedures need a session.
    console: false,
    body: confirmEmailVerificationInput,
    response: emailVerifiedSchema,
    addressLimit: { name: "email-verification-confirm", requests: 20, windowSeconds: 60 },
    errors: ["validation_failed", "not_found"],
    handler: ({ body, ...ctx }) => confirmEmailVerification(ctx, body.token),
  }),
};
