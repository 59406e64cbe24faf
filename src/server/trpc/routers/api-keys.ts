import { z } from "zod";
import { createApiKeyInput, listApiKeysInput } from "@/lib/schemas/api-keys";
import { id } from "@/lib/schemas/common";
import { apiKeyPolicy, createApiKey, listApiKeys, revokeApiKey } from "@/server/services/api-keys/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// The console's API key screen. The same services and schemas as the REST key routes.

export const apiKeysRouter = createTRPCRouter({
  /** Keys of the signed-in admin, or of another user (`user_id`), newest first. */
  list: consoleProcedure("svc:system:api_keys:read")
    .input(listApiKeysInput)
    .query(({ ctx, input }) => listApiKeys(ctx.actor, input)),

  /** Creates a key for the signed-in admin; the raw key is in this answer only. */
  create: consoleProcedure("svc:system:api_keys:write")
    .input(createApiKeyInput)
    .mutation(({ ctx, input }) => createApiKey(ctx.actor, ctx.actor.userId, input)),

  /** Revokes one of the signed-in admin's keys. */
  revoke: consoleProcedure("svc:system:api_keys:revoke")
    .input(z.strictObject({ id }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.actor, input.id)),

  /** The platform's key policy, which the create dialog follows. */
  policy: consoleProcedure("svc:system:api_keys:read").query(({ ctx }) => apiKeyPolicy(ctx.actor)),
});
