import "server-only";
import { z } from "zod";
import { signOutEverywhere } from "@/server/services/users/service";
import type { SessionActor, UserActor } from "@/server/auth/actor";
import { startLinking } from "@/server/auth/identity-linking";
import { defineOperation } from "./operation";

// What signed-in users do for themselves, from their own console session (never through a key).

const tag = "Identity";

export const accountOperations = {
  linkIdentity: defineOperation({
    id: "linkIdentity", method: "POST", path: "/api/v1/me/identities/link", tag, summary: "Start linking an external account to the caller",
    description:
      "Answers where to send the browser: the provider's sign-in. Coming back, the external account is linked to the caller; one already linked to another user is refused, and the profile page says so.",
    access: "session", body: z.strictObject({ provider: z.string().min(1).max(50).describe("github, google or oidc: an enabled provider.") }),
    response: z.object({ redirect_url: z.string() }), errors: ["validation_failed"],
    handler: ({ actor, body }) => startLinking(actor as SessionActor, body.provider),
  }),
  signOutEverywhere: defineOperation({
    id: "signOutEverywhere", method: "POST", path: "/api/v1/me/sign-out-everywhere", tag, summary: "End every console session of the caller",
    description: "In every process at once, this session included. API keys are not affected.",
    access: "session", response: z.object({ signed_out: z.literal(true) }),
    handler: ({ actor }) => signOutEverywhere(actor as UserActor),
  }),
};
