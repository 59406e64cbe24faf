import { z } from "zod";
import { createLlmConfigInput, llmConfigListSchema, llmConfigParams, llmConfigSchema, updateLlmConfigInput } from "@/lib/schemas/llm-configs";
import { orgIdParams } from "@/lib/schemas/organizations";
import { createLlmConfig, deleteLlmConfig, getLlmConfig, listLlmConfigs, updateLlmConfig } from "@/server/services/llm-configs/service";
import { defineRoute, RouteResult } from "../route";

const tag = "LLM configs";
const BASE = "/api/v1/organizations/{org_id}/llm-configs";
const ONE = `${BASE}/{config_id}`;

export const llmConfigRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listLlmConfigs", tag, list: true,
    summary: "List an organization's LLM configs",
    description: "`enabled=true` lists only the configs new orchestrators may use. Provider keys are never returned, only their last 4 characters.",
    access: { permission: "svc:org:llm_configs:read", org: "org_id" },
    params: orgIdParams,
    query: z.strictObject({ enabled: z.enum(["true", "false"]).transform((v) => v === "true").optional() }),
    response: llmConfigListSchema,
    handler: ({ actor, params, query }) => listLlmConfigs(actor, params.org_id, { enabledOnly: query.enabled }),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createLlmConfig", tag,
    summary: "Add an LLM provider config (bring your own key)",
    description: "`api_key` is encrypted at rest (AES-256-GCM). `base_url` must be https and must not point to a private, loopback or link-local address.",
    access: { permission: "svc:org:llm_configs:write", org: "org_id" },
    params: orgIdParams,
    body: createLlmConfigInput,
    response: llmConfigSchema,
    status: 201,
    errors: ["not_found"],
    handler: async ({ actor, params, body }) => {
      const config = await createLlmConfig(actor, params.org_id, body);
      return new RouteResult(config, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/llm-configs/${config.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getLlmConfig", tag,
    summary: "Read an LLM config",
    access: { permission: "svc:org:llm_configs:read", org: "org_id" },
    params: llmConfigParams,
    response: llmConfigSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getLlmConfig(actor, params.org_id, params.config_id),
  }),
  defineRoute({
    method: "PATCH", path: ONE, operationId: "updateLlmConfig", tag,
    summary: "Update an LLM config",
    description: "The provider is fixed after creation (400 `immutable_field`).",
    access: { permission: "svc:org:llm_configs:write", org: "org_id" },
    params: llmConfigParams,
    body: updateLlmConfigInput,
    response: llmConfigSchema,
    errors: ["not_found", "immutable_field"],
    handler: ({ actor, params, body }) => updateLlmConfig(actor, params.org_id, params.config_id, body),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "deleteLlmConfig", tag,
    summary: "Delete an LLM config (soft)",
    access: { permission: "svc:org:llm_configs:write", org: "org_id" },
    params: llmConfigParams,
    response: llmConfigSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => deleteLlmConfig(actor, params.org_id, params.config_id),
  }),
];
