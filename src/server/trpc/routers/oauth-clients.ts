import { z } from "zod";
import { clientIdParams, createOAuthClientInput, listOAuthClientsQuery, updateOAuthClientInput } from "@/lib/schemas/oauth-clients";
import {
  createOAuthClient,
  deleteOAuthClient,
  getOAuthClient,
  listOAuthClients,
  rotateOAuthClientSecret,
  updateOAuthClient,
} from "@/server/services/oauth-clients/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// The console's OAuth clients screen: the same services, schemas and permissions as the REST routes
// (src/server/rest/routes/oauth-clients.ts). A confidential client's secret is in the answers of
// `create` and `rotateSecret` only.

/** The REST query as the console sends it: booleans as booleans; TanStack's `direction` dropped. */
const listInput = z.object({ ...listOAuthClientsQuery.shape, active: z.boolean().optional(), include_deleted: z.boolean().optional() });
const clientInput = clientIdParams;

export const oauthClientsRouter = createTRPCRouter({
  /** `q` matches name or client_id; `active` filters; deleted ones on request. */
  list: consoleProcedure("svc:system:oauth_clients:read")
    .input(listInput)
    .query(({ ctx, input }) => listOAuthClients(ctx.actor, input)),

  get: consoleProcedure("svc:system:oauth_clients:read")
    .input(clientInput)
    .query(({ ctx, input }) => getOAuthClient(ctx.actor, input.client_id)),

  /** A confidential client's secret is in `client_secret`, in this answer only. */
  register: consoleProcedure("svc:system:oauth_clients:write")
    .input(createOAuthClientInput)
    .mutation(({ ctx, input }) => createOAuthClient(ctx.actor, input)),

  /** `is_active: false` deactivates, `true` reactivates; client_type is fixed. */
  update: consoleProcedure("svc:system:oauth_clients:write")
    .input(updateOAuthClientInput.extend(clientInput.shape))
    .mutation(({ ctx, input: { client_id, ...changes } }) => updateOAuthClient(ctx.actor, client_id, changes)),

  /** Soft delete (and deactivation). */
  delete: consoleProcedure("svc:system:oauth_clients:write")
    .input(clientInput)
    .mutation(({ ctx, input }) => deleteOAuthClient(ctx.actor, input.client_id)),

  /** Confidential clients only (CONFLICT otherwise); the new secret is in this answer only. */
  rotateSecret: consoleProcedure("svc:system:oauth_clients:write")
    .input(clientInput)
    .mutation(({ ctx, input }) => rotateOAuthClientSecret(ctx.actor, input.client_id)),
});
