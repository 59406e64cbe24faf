import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { createLlmConfigInput, updateLlmConfigInput } from "@/lib/schemas/llm-configs";
import { createLlmConfig, deleteLlmConfig, getLlmConfig, listLlmConfigs, updateLlmConfig } from "@/server/services/llm-configs/service";
import { createTRPCRouter, orgProcedure } from "../init";

// An organization's LLM configs. Provider keys never come back, only their last 4 characters.

const one = z.strictObject({ org_id: id, config_id: id });

export const llmConfigsRouter = createTRPCRouter({
  /** `enabled: true`: only what new orchestrators may use. */
  list: orgProcedure("svc:org:llm_configs:read", { list: true })
    .input(z.strictObject({ org_id: id, enabled: z.boolean().optional() }))
    .query(({ ctx, input }) => listLlmConfigs(ctx.actor, input.org_id, { enabledOnly: input.enabled })),

  get: orgProcedure("svc:org:llm_configs:read")
    .input(one)
    .query(({ ctx, input }) => getLlmConfig(ctx.actor, input.org_id, input.config_id)),

  create: orgProcedure("svc:org:llm_configs:write")
    .input(createLlmConfigInput.extend({ org_id: id }))
    .mutation(({ ctx, input: { org_id, ...config } }) => createLlmConfig(ctx.actor, org_id, config)),

  /** The provider is fixed after creation (BAD_REQUEST, `immutable_field`). */
  update: orgProcedure("svc:org:llm_configs:write")
    .input(updateLlmConfigInput.extend({ org_id: id, config_id: id }))
    .mutation(({ ctx, input: { org_id, config_id, ...changes } }) => updateLlmConfig(ctx.actor, org_id, config_id, changes)),

  delete: orgProcedure("svc:org:llm_configs:write")
    .input(one)
    .mutation(({ ctx, input }) => deleteLlmConfig(ctx.actor, input.org_id, input.config_id)),
});
