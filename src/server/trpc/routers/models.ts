import { z } from "zod";
import { createModelInput, listModelsInput, updateModelInput } from "@/lib/schemas/models";
import { createModel, getModel, listModels, updateModel } from "@/server/services/models/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// The console's model catalog screen. The same services and schemas as the REST routes under
// /api/v1/models; prices stay decimal strings all the way.

const modelId = z.number().int().positive();

export const modelsRouter = createTRPCRouter({
  /** The catalog in id order, filtered by provider, category and enabled. */
  list: consoleProcedure("svc:models:read")
    .input(listModelsInput)
    .query(({ ctx, input }) => listModels(ctx.actor, input)),

  get: consoleProcedure("svc:models:read")
    .input(z.strictObject({ id: modelId }))
    .query(({ ctx, input }) => getModel(ctx.actor, input.id)),

  /** Adds a model; (provider, model_id) is unique among enabled models. */
  create: consoleProcedure("svc:system:models:write")
    .input(createModelInput)
    .mutation(({ ctx, input }) => createModel(ctx.actor, input)),

  /** Changes the fields given (provider and model_id never change), including enabled. */
  update: consoleProcedure("svc:system:models:write")
    .input(updateModelInput.extend({ id: modelId }))
    .mutation(({ ctx, input: { id, ...changes } }) => updateModel(ctx.actor, id, changes)),
});
