import { z } from "zod";
import { booleanQuery, id, includeDeleted, listOf, pageQuery, softDeletedRecord } from "./common";

// Bring-your-own-key LLM provider configurations of an organization.

export const LLM_PROVIDERS = ["openai", "anthropic", "google", "azure_openai", "mistral", "openai_compatible"] as const;

const baseUrl = z.url({ protocol: /^https?$/ }).max(512);

export const createLlmConfigInput = z.strictObject({
  name: z.string().trim().min(1).max(255),
  provider: z.enum(LLM_PROVIDERS),
  api_key: z.string().min(8).max(4096).describe("Stored encrypted; never returned (only its last 4 characters)."),
  base_url: baseUrl.nullable().optional(),
  additional_config: z.record(z.string(), z.json()).default({}),
  is_enabled: z.boolean().default(true),
});
export type CreateLlmConfigInput = z.output<typeof createLlmConfigInput>;

export const updateLlmConfigInput = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  provider: z.string().optional().describe("Fixed after creation: a different value answers 400 immutable_field."),
  api_key: z.string().min(8).max(4096).optional(),
  base_url: baseUrl.nullable().optional(),
  additional_config: z.record(z.string(), z.json()).optional(),
  is_enabled: z.boolean().optional(),
});
export type UpdateLlmConfigInput = z.output<typeof updateLlmConfigInput>;

export const listLlmConfigsQuery = pageQuery.extend({
  enabled: booleanQuery.optional().describe("true: only the configs new orchestrators may use."),
  include_deleted: includeDeleted,
});
export type ListLlmConfigsQuery = z.output<typeof listLlmConfigsQuery>;

export const llmConfigParams = z.strictObject({ org_id: id, config_id: id });

export const llmConfigSchema = z.object({
  id: z.uuid(),
  org_id: z.uuid(),
  name: z.string(),
  provider: z.string(),
  api_key_last4: z.string().describe("The last 4 characters of the provider key."),
  base_url: z.string().nullable(),
  additional_config: z.record(z.string(), z.json()),
  is_enabled: z.boolean(),
  ...softDeletedRecord,
});
export type LlmConfig = z.infer<typeof llmConfigSchema>;
export const llmConfigListSchema = listOf(llmConfigSchema);
