import { z } from "zod";
import {
  booleanQuery,
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  LENGTH,
  listOf,
  pageQuery,
  softDeletedRecord,
  text,
} from "./common";

// Bring-your-own-key LLM provider configurations of an organization.

export const LLM_PROVIDERS = ["openai", "anthropic", "google", "azure_openai", "mistral", "openai_compatible"] as const;

const baseUrl = z.url({ protocol: /^https?$/ }).max(LENGTH.LONG);
/** A provider's own options: a JSON object with field names of a column's length. */
const additionalConfig = z.record(text(), z.json());
/** A provider key as the provider issues it; stored encrypted, so its column is text. */
const apiKey = text(4096).min(8);

export const createLlmConfigInput = z
  .strictObject({
    name: text().trim().min(1),
    provider: z.enum(LLM_PROVIDERS),
    api_key: apiKey.describe("Stored encrypted; never returned (only its last 4 characters)."),
    base_url: baseUrl.nullable().optional(),
    additional_config: additionalConfig.default({}),
    is_enabled: z.boolean().default(true),
  })
  .meta({
    examples: [
      {
        name: "OpenAI production",
        provider: "openai",
        api_key: "sk-example-0123456789",
        additional_config: { organization: "org-acme" },
      },
    ],
  });
export type CreateLlmConfigInput = z.output<typeof createLlmConfigInput>;

export const updateLlmConfigInput = z
  .strictObject({
    name: text().trim().min(1).optional(),
    provider: text(LENGTH.SHORT)
      .optional()
      .describe("Fixed after creation: a different value answers 400 immutable_field."),
    api_key: apiKey.optional(),
    base_url: baseUrl.nullable().optional(),
    additional_config: additionalConfig.optional(),
    is_enabled: z.boolean().optional(),
  })
  .meta({ examples: [{ is_enabled: false }] });
export type UpdateLlmConfigInput = z.output<typeof updateLlmConfigInput>;

export const listLlmConfigsQuery = pageQuery.extend({
  enabled: booleanQuery.optional().describe("true: only the configs new orchestrators may use."),
  include_deleted: includeDeleted,
});
export type ListLlmConfigsQuery = z.output<typeof listLlmConfigsQuery>;

export const llmConfigParams = z.strictObject({ org_id: id, config_id: id });

export const llmConfigSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    name: text(),
    provider: text(LENGTH.SHORT),
    api_key_last4: text(4)
      .nullable()
      .describe("The last 4 characters of the provider key; null when it cannot be decrypted."),
    api_key_readable: z
      .boolean()
      .describe(
        "false when the stored key cannot be decrypted (tampered with, moved, or its encryption key is gone): set a new one.",
      ),
    base_url: text(LENGTH.LONG).nullable(),
    additional_config: additionalConfig,
    is_enabled: z.boolean(),
    ...softDeletedRecord,
  })
  .meta({
    id: "LlmConfig",
    examples: [
      {
        id: "0193a5c5-6e7f-7a8b-9c0d-1e2f3a4b5c6d",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        name: "OpenAI production",
        provider: "openai",
        api_key_last4: "6789",
        api_key_readable: true,
        base_url: null,
        additional_config: { organization: "org-acme" },
        is_enabled: true,
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type LlmConfig = z.input<typeof llmConfigSchema>;
export const llmConfigListSchema = listOf(llmConfigSchema);
