import { z } from "zod";
import { EXAMPLE_TIMESTAMPS, id, list, listOf, moment, pageQuery, text, timestamps } from "./common";

// The organization's side of directory provisioning on the REST API and in the console: its SCIM
// tokens, the people and groups its directory provisioned, a group's roles, the latest requests.
// The SCIM service itself (/api/scim/v2) speaks RFC 7643/7644: see src/server/scim.

// A token is named by `credential_id`: linters of API documents take a path parameter named "token" for a secret.
export const scimTokenParams = z.strictObject({ org_id: id, credential_id: id });
export const scimGroupParams = z.strictObject({ org_id: id, group_id: id });

export const createScimTokenInput = z
  .strictObject({ name: text(100).trim().min(1).describe("What the token is for, e.g. the directory's name.") })
  .meta({ examples: [{ name: "Okta" }] });
export type CreateScimTokenInput = z.output<typeof createScimTokenInput>;

const EXAMPLE_TOKEN = {
  id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f2c",
  org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
  name: "Okta",
  prefix: "scim_7Hq2xK9p",
  last_used_at: null,
  revoked_at: null,
  created_by: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b72",
  ...EXAMPLE_TIMESTAMPS,
};

export const scimTokenSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    name: text(100),
    prefix: text(16).describe("The token's first characters, to tell it apart."),
    last_used_at: moment.nullable(),
    revoked_at: moment.nullable(),
    created_by: text().nullable(),
    ...timestamps,
  })
  .meta({ examples: [EXAMPLE_TOKEN] });
export type ScimToken = z.input<typeof scimTokenSchema>;

export const createdScimTokenSchema = scimTokenSchema
  .extend({
    token: text(64).describe("The token, shown this once: the directory sends it as `Authorization: Bearer …`."),
  })
  .meta({
    id: "CreatedScimToken",
    examples: [{ ...EXAMPLE_TOKEN, token: "scim_7Hq2xK9pR4mN8vB2cX6zL1qW5eT9yU3iO7pA0sD4fG8hJ2k0AbCdE" }],
  });
export type CreatedScimToken = z.input<typeof createdScimTokenSchema>;

export const scimTokenListSchema = listOf(scimTokenSchema);
export const listScimTokensQuery = pageQuery;

const scimUserSummarySchema = z.object({
  id: z.uuid().describe("The SCIM resource's id (what the directory addresses)."),
  user_id: z.uuid(),
  user_name: text(),
  external_id: text().nullable(),
  display_name: text().nullable(),
  email: text().nullable(),
  active: z.boolean().describe("False: the directory suspended the person here."),
  ...timestamps,
});
export type ScimUserSummary = z.input<typeof scimUserSummarySchema>;
export const scimUserSummaryListSchema = listOf(scimUserSummarySchema);
export const listScimUsersQuery = pageQuery;

export const scimGroupSummarySchema = z.object({
  id: z.uuid(),
  org_id: z.uuid(),
  display_name: text(),
  external_id: text().nullable(),
  member_count: z.number().int().min(0),
  role_ids: list(z.uuid(), 20).describe("The org roles the group's members hold in the organization."),
  ...timestamps,
});
export type ScimGroupSummary = z.input<typeof scimGroupSummarySchema>;
export const scimGroupSummaryListSchema = listOf(scimGroupSummarySchema);
export const listScimGroupsQuery = pageQuery;

export const mapScimGroupInput = z
  .strictObject({
    role_ids: list(id, 20).describe("Org roles the group's members hold here; [] grants nothing. No escalation."),
  })
  .meta({ examples: [{ role_ids: ["0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b71"] }] });
export type MapScimGroupInput = z.output<typeof mapScimGroupInput>;

const scimRequestSchema = z.object({
  id: z.uuid(),
  token_prefix: text(16),
  method: text(10),
  path: text(2048),
  status: z.number().int(),
  scim_type: text(30).nullable(),
  detail: text(500).nullable(),
  occurred_at: moment,
});
export type ScimRequestEntry = z.input<typeof scimRequestSchema>;
export const scimRequestListSchema = listOf(scimRequestSchema);
export const listScimRequestsQuery = pageQuery;
