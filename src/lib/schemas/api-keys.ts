import { z } from "zod";
import { booleanQuery, id, listOf, pageQuery, timestamp, timestamps } from "./common";

// API key inputs and outputs: one schema each, feeding the REST handlers, the tRPC procedures,
// the OpenAPI document and the console's forms.

export const createApiKeyInput = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(255),
  // Unknown scopes are refused by the service with `unknown_scope`, so any string is let through here.
  scopes: z
    .array(z.string().max(255))
    .min(1, "must list at least one scope")
    .max(64)
    .refine((s) => new Set(s).size === s.length, "must not repeat a scope"),
  expires_at: timestamp.nullable().default(null),
});
export type CreateApiKeyInput = z.output<typeof createApiKeyInput>;

export const listApiKeysQuery = pageQuery.extend({
  active: booleanQuery.optional(),
  user_id: id.optional(),
});
export type ListApiKeysQuery = z.output<typeof listApiKeysQuery>;


export const apiKeyIdParams = z.strictObject({ key_id: id });

export const apiKeySchema = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  name: z.string(),
  key_prefix: z.string(),
  scopes: z.array(z.string()),
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable(),
  is_active: z.boolean(),
  ...timestamps,
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key_prefix: z.string(),
  scopes: z.array(z.string()),
  effective_scopes: z.array(z.string()).describe("The scopes without the dangerous ones: what the key will carry."),
  expires_at: timestamp.nullable(),
  is_active: z.boolean(),
  created_at: timestamp,
  raw_key: z.string().describe("The key itself. Shown once, in this response only."),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const apiKeyListSchema = listOf(apiKeySchema);
