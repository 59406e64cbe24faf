import "server-only";
import {
  createModelInput,
  listModelsQuery,
  lookupModelQuery,
  modelListSchema,
  modelParams,
  modelSchema,
  updateModelInput,
} from "@/lib/schemas/models";
import { createModel, getModel, listModels, lookupModel, updateModel } from "@/server/services/models/service";
import { defineOperation } from "./operation";

// The model catalog: every organization reads it; the platform maintains it.

const tag = "Models";
const BASE = "/api/v1/models";
const read = { permission: "svc:models:read", anyOrg: true } as const;
const write = { permission: "svc:system:models:write" } as const;

export const modelOperations = {
  list: defineOperation({
    id: "listModels",
    method: "GET",
    path: BASE,
    tag,
    summary: "List the model catalog",
    description: "Filter by `provider`, `model_category`, `enabled`. Prices are decimal strings.",
    access: read,
    query: listModelsQuery,
    response: modelListSchema,
    handler: ({ query, ...ctx }) => listModels(ctx, query),
  }),
  create: defineOperation({
    id: "createModel",
    method: "POST",
    path: BASE,
    tag,
    summary: "Add a model",
    description:
      "(provider, model_id) is unique among enabled models (409). Prices are decimal strings with up to 8 fraction digits; currency is an ISO 4217 code.",
    access: write,
    body: createModelInput,
    response: modelSchema,
    created: (model) => String(model.id),
    errors: ["conflict"],
    handler: ({ body, ...ctx }) => createModel(ctx, body),
  }),
  lookup: defineOperation({
    id: "lookupModel",
    method: "GET",
    path: `${BASE}/lookup`,
    tag,
    summary: "Find the enabled model a model_id or alias names",
    access: read,
    query: lookupModelQuery,
    response: modelSchema,
    errors: ["not_found"],
    handler: ({ query, ...ctx }) => lookupModel(ctx, query.name),
  }),
  get: defineOperation({
    id: "getModel",
    method: "GET",
    path: `${BASE}/{model_config_id}`,
    tag,
    summary: "Read a model",
    access: read,
    params: modelParams,
    response: modelSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getModel(ctx, params.model_config_id),
  }),
  update: defineOperation({
    id: "updateModel",
    method: "PATCH",
    path: `${BASE}/{model_config_id}`,
    tag,
    summary: "Edit, enable or disable a model",
    access: write,
    params: modelParams,
    body: updateModelInput,
    response: modelSchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, body, ...ctx }) => updateModel(ctx, params.model_config_id, body),
  }),
};
