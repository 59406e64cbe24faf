import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { createOrchestratorInput, listOrchestratorsQuery, updateOrchestratorInput } from "@/lib/schemas/orchestrators";
import {
  createOrchestrator,
  deleteOrchestrator,
  getOrchestrator,
  listOrchestrators,
  updateOrchestrator,
} from "@/server/services/orchestrators/service";
import { effectiveInstanceSettings } from "@/server/services/settings/service";
import { createTRPCRouter, orgProcedure } from "../init";

// An organization's orchestrator instances (tier 4). framework_type and mode are fixed at creation.

const one = z.strictObject({ org_id: id, orchestrator_id: id });

/** The REST query as the console sends it: `include_deleted` a boolean; TanStack's `direction` dropped. */
const listInput = z.object({ ...listOrchestratorsQuery.shape, org_id: id, include_deleted: z.boolean().optional() });

export const orchestratorsRouter = createTRPCRouter({
  list: orgProcedure("svc:orchestrators:read", { list: true })
    .input(listInput)
    .query(({ ctx, input: { org_id, ...query } }) => listOrchestrators(ctx.actor, org_id, query)),

  get: orgProcedure("svc:orchestrators:read")
    .input(one)
    .query(({ ctx, input }) => getOrchestrator(ctx.actor, input.org_id, input.orchestrator_id)),

  /** Every key of the effective config with the tier it came from, and the config_hash. */
  effectiveConfig: orgProcedure("svc:orchestrators:read")
    .input(one)
    .query(({ ctx, input }) => effectiveInstanceSettings(ctx.actor, input.org_id, input.orchestrator_id)),

  create: orgProcedure("svc:orchestrators:write")
    .input(createOrchestratorInput.extend({ org_id: id }))
    .mutation(({ ctx, input: { org_id, ...instance } }) => createOrchestrator(ctx.actor, org_id, instance)),

  /** Changing framework_type or mode is BAD_REQUEST (`immutable_field`). */
  update: orgProcedure("svc:orchestrators:write")
    .input(updateOrchestratorInput.extend({ org_id: id, orchestrator_id: id }))
    .mutation(({ ctx, input: { org_id, orchestrator_id, ...changes } }) => updateOrchestrator(ctx.actor, org_id, orchestrator_id, changes)),

  /** Soft delete; CONFLICT while a central point refers to the instance. */
  delete: orgProcedure("svc:orchestrators:delete")
    .input(one)
    .mutation(({ ctx, input }) => deleteOrchestrator(ctx.actor, input.org_id, input.orchestrator_id)),
});
