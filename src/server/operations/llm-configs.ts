import "server-only";
import {
  createLlmConfigInput,
  listLlmConfigsQuery,
  llmConfigListSchema,
  llmConfigParams,
  llmConfigSchema,
  updateLlmConfigInput,
} from "@/lib/schemas/llm-configs";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  createLlmConfig,
  deleteLlmConfig,
  getLlmConfig,
  listLlmConfigs,
  restoreLlmConfig,
  updateLlmConfig,
} from "@/server/services/llm-configs/service";
import { defineOperation, inOrganization } from "./operation";
import { softDeletable } from "./soft-delete";

// An organization's bring-your-own-key LLM provider configs. Provider keys never come back, only
// their last 4 characters.

const tag = "LLM configs";
const { BASE, ONE, read, write } = inOrganization("llm-configs", "config_id", {
  read: "svc:org:llm_configs:read",
  write: "svc:org:llm_configs:write",
});

export const llmConfigOperations = {
  list: defineOperation({
    id: "listLlmConfigs",
    method: "GET",
    path: BASE,
    tag,
    summary: "List an organization's LLM configs",
    description:
      "`enabled=true` lists only the configs new orchestrators may use. Provider keys are never returned, only their last 4 characters.",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listLlmConfigsQuery,
    response: llmConfigListSchema,
    handler: ({ params, query, ...ctx }) => listLlmConfigs(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createLlmConfig",
    method: "POST",
    path: BASE,
    tag,
    summary: "Add an LLM provider config (bring your own key)",
    description:
      "`api_key` is encrypted at rest (AES-256-GCM). `base_url` must be https and must not point to a private, loopback or link-local address.",
    access: write,
    params: orgIdParams,
    body: createLlmConfigInput,
    response: llmConfigSchema,
    created: (config) => config.id,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => createLlmConfig(ctx, params.org_id, body),
  }),
  update: defineOperation({
    id: "updateLlmConfig",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Update an LLM config",
    description: "The provider is fixed after creation (400 `immutable_field`).",
    access: write,
    params: llmConfigParams,
    body: updateLlmConfigInput,
    response: llmConfigSchema,
    errors: ["not_found", "immutable_field"],
    handler: ({ params, body, ...ctx }) => updateLlmConfig(ctx, params.org_id, params.config_id, body),
  }),
  ...softDeletable({
    name: "LlmConfig",
    noun: "an LLM config",
    path: ONE,
    tag,
    params: llmConfigParams,
    response: llmConfigSchema,
    access: { read, delete: write, restore: write },
    get: (ctx, p, options) => getLlmConfig(ctx, p.org_id, p.config_id, options),
    delete: (ctx, p) => deleteLlmConfig(ctx, p.org_id, p.config_id),
    restore: (ctx, p) => restoreLlmConfig(ctx, p.org_id, p.config_id),
  }),
};
