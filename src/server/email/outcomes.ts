import "server-only";
import type { Context } from "@/server/db/context";

// Who records a message's outcome, by the kind of thing the message is about. Loaded lazily, so the
// email worker does not pull every feature in at start.

export type EmailOutcome = "sent" | "failed";
export type OutcomeRecorder = (ctx: Context, id: string, outcome: EmailOutcome) => Promise<void>;

export const EMAIL_OUTCOME_RECORDERS: Record<string, () => Promise<OutcomeRecorder>> = {
  email_verification: () =>
    import("@/server/services/email-verification/service").then((m) => m.recordEmailVerificationDelivery),
  invitation: () => import("@/server/services/invitations/service").then((m) => m.recordInvitationDelivery),
};
