import { z } from "zod";
import { booleanQuery, EXAMPLE_TIMESTAMPS, id, listOf, pageQuery, timestamp, timestamps } from "./common";

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
}).meta({ examples: [{ name: "ci-deploy", scopes: ["svc:system:orgs:read", "svc:orchestrators:read"], expires_at: "2027-01-15T09:30:00.000Z" }] });
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
}).meta({
  id: "ApiKey",
  examples: [
    {
      id: "0193a5c3-0a4b-7c5d-9e6f-7a8b9c0d1e2f",
      user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
      name: "ci-deploy",
      key_prefix: "cdk_7Hq2LmXa",
      scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
      expires_at: "2027-01-15T09:30:00.000Z",
      last_used_at: "2026-02-03T14:05:12.000Z",
      is_active: true,
      ...EXAMPLE_TIMESTAMPS,
    },
  ],
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
}).meta({
  id: "CreatedApiKey",
  examples: [
    {
      id: "0193a5c3-0a4b-7c5d-9e6f-7a8b9c0d1e2f",
      name: "ci-deploy",
      key_prefix: "cdk_7Hq2LmXa",
      scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
      effective_scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
      expires_at: "2027-01-15T09:30:00.000Z",
      is_active: true,
      created_at: "2026-01-15T09:30:00.000Z",
      raw_key: "cdk_7Hq2LmXaP4kR9sT1vW3yZ5bD7fH9jL2nQ4rS6tU8wX0zAb3Kx9",
    },
  ],
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const apiKeyListSchema = listOf(apiKeySchema);
