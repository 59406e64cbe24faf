import "server-only";
import { z } from "zod";
import { signOutEverywhere } from "@/server/services/users/service";
import type { UserActor } from "@/server/auth/actor";
import { defineOperation } from "./operation";

// What signed-in users do for themselves, from their own console session (never through a key).

const tag = "Identity";

export const accountOperations = {
  signOutEverywhere: defineOperation({
    id: "signOutEverywhere", method: "POST", path: "/api/v1/me/sign-out-everywhere", tag, summary: "End every console session of the caller",
    description: "In every process at once, this session included. API keys are not affected.",
    access: "session", response: z.object({ signed_out: z.literal(true) }),
    handler: ({ actor }) => signOutEverywhere(actor as UserActor),
  }),
};
