import { z } from "zod";
import { apiKeyIdParams } from "./api-keys";
import { EXAMPLE_TIMESTAMPS, id, list, listOf, pageQuery, searchTerm, text, timestamps } from "./common";
import { username } from "./users";

// Service accounts: users of kind `service` that stand for a machine in one organization. Their
// keys use the API key schemas (lib/schemas/api-keys) as they are.

/** The most org roles one service account is created or updated with at once. */
const MAX_ROLES_AT_ONCE = 20;

const roleIds = list(id, MAX_ROLES_AT_ONCE)
  .refine((ids) => new Set(ids).size === ids.length, "must not repeat a role")
  .describe("Org roles granted in this organization; each permission of each must be one you hold there.");

export const createServiceAccountInput = z
  .strictObject({
    username,
    display_name: text().trim().min(1, "must not be empty").nullable().default(null),
    role_ids: roleIds.default([]),
  })
  .meta({
    examples: [
      { username: "ci-deployer", display_name: "CI deployer", role_ids: ["0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b"] },
    ],
  });
export type CreateServiceAccountInput = z.output<typeof createServiceAccountInput>;

export const updateServiceAccountInput = z
  .strictObject({
    display_name: text().trim().min(1, "must not be empty").nullable().optional(),
    role_ids: roleIds
      .optional()
      .describe(
        "The account's org roles from now on (roles left out are revoked); each role added or removed must be one you hold.",
      ),
  })
  .meta({ examples: [{ display_name: "Nightly export", role_ids: ["0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b"] }] });
export type UpdateServiceAccountInput = z.output<typeof updateServiceAccountInput>;

export const listServiceAccountsQuery = pageQuery.extend({
  q: searchTerm("Matches username or display name."),
});
export type ListServiceAccountsQuery = z.output<typeof listServiceAccountsQuery>;

export const serviceAccountParams = z.strictObject({ org_id: id, user_id: id });
export const serviceAccountKeyParams = serviceAccountParams.extend(apiKeyIdParams.shape);

export const serviceAccountSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    username: text(),
    display_name: text().nullable(),
    roles: list(z.object({ id: z.uuid(), name: text() }), MAX_ROLES_AT_ONCE * 5).describe(
      "Org roles the account holds in its organization.",
    ),
    created_by: text().nullable().describe("Who created it (a user id, or `system:<component>`); it outlives them."),
    ...timestamps,
  })
  .meta({
    id: "ServiceAccount",
    examples: [
      {
        id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        username: "ci-deployer",
        display_name: "CI deployer",
        roles: [{ id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b", name: "org_member" }],
        created_by: "0193a5c2-1111-7e2d-8a6b-3c9e5d7f1a22",
        ...EXAMPLE_TIMESTAMPS,
      },
    ],
  });
export type ServiceAccount = z.input<typeof serviceAccountSchema>;
export const serviceAccountListSchema = listOf(serviceAccountSchema);
