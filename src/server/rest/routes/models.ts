import { createModelInput, listModelsQuery, lookupModelQuery, modelListSchema, modelParams, modelSchema, updateModelInput } from "@/lib/schemas/models";
import { createModel, getModel, listModels, lookupModel, updateModel } from "@/server/services/models/service";
import { defineRoute, RouteResult } from "../route";

const tag = "Models";
const BASE = "/api/v1/models";
const read = { permission: "svc:models:read", anyOrg: true } as const;

export const modelRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listModels", tag,
    summary: "List the model catalog",
    description: "Filter by `provider`, `model_category`, `enabled`. Prices are decimal strings.",
    access: read,
    query: listModelsQuery,
    response: modelListSchema,
    handler: ({ actor, query }) => listModels(actor, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createModel", tag,
    summary: "Add a model",
    description: "(provider, model_id) is unique among enabled models (409). Prices are decimal strings with up to 8 fraction digits; currency is an ISO 4217 code.",
    access: { permission: "svc:system:models:write" },
    body: createModelInput,
    response: modelSchema,
    status: 201,
    errors: ["conflict"],
    handler: async ({ actor, body }) => {
      const model = await createModel(actor, body);
      return new RouteResult(model, { status: 201, headers: { Location: `${BASE}/${model.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: `${BASE}/lookup`, operationId: "lookupModel", tag,
    summary: "Find the enabled model a model_id or alias names",
    access: read,
    query: lookupModelQuery,
    response: modelSchema,
    errors: ["not_found"],
    handler: ({ actor, query }) => lookupModel(actor, query.name),
  }),
  defineRoute({
    method: "GET", path: `${BASE}/{model_config_id}`, operationId: "getModel", tag,
    summary: "Read a model",
    access: read,
    params: modelParams,
    response: modelSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getModel(actor, params.model_config_id),
  }),
  defineRoute({
    method: "PATCH", path: `${BASE}/{model_config_id}`, operationId: "updateModel", tag,
    summary: "Edit, enable or disable a model",
    access: { permission: "svc:system:models:write" },
    params: modelParams,
    body: updateModelInput,
    response: modelSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params, body }) => updateModel(actor, params.model_config_id, body),
  }),
];
