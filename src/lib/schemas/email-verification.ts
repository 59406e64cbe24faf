import { z } from "zod";
import { moment, text } from "./common";

// Verifying one's email with a link sent to it (docs/access.md#verified-emails).

export const emailVerificationSentSchema = z
  .object({
    email: text().describe("Where the link went."),
    sent_at: moment,
    expires_at: moment.describe("24 hours after sending; a newer link, or a change of email, ends it sooner."),
  })
  .meta({
    id: "EmailVerificationSent",
    examples: [
      { email: "ada@example.com", sent_at: "2026-12-04T09:30:00.000Z", expires_at: "2026-12-05T09:30:00.000Z" },
    ],
  });
export type EmailVerificationSent = z.output<typeof emailVerificationSentSchema>;

export const confirmEmailVerificationInput = z
  .strictObject({ token: text(64).min(1).describe("The token at the end of the link the email carried.") })
  .meta({ examples: [{ token: "4f9QzA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2xY3" }] });

export const emailVerifiedSchema = z
  .object({ email: text(), verified: z.literal(true) })
  .meta({ id: "EmailVerified", examples: [{ email: "ada@example.com", verified: true }] });
export type EmailVerified = z.output<typeof emailVerifiedSchema>;
