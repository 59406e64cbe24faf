import "server-only";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  createdScimTokenSchema,
  createScimTokenInput,
  listScimGroupsQuery,
  listScimRequestsQuery,
  listScimTokensQuery,
  listScimUsersQuery,
  mapScimGroupInput,
  scimGroupParams,
  scimGroupSummaryListSchema,
  scimGroupSummarySchema,
  scimRequestListSchema,
  scimTokenListSchema,
  scimTokenParams,
  scimTokenSchema,
  scimUserSummaryListSchema,
} from "@/lib/schemas/scim";
import { listDirectoryGroups, mapDirectoryGroup } from "@/server/services/scim/groups";
import { listScimRequests } from "@/server/services/scim/requests";
import { createScimToken, listScimTokens, revokeScimToken } from "@/server/services/scim/tokens";
import { listDirectoryUsers } from "@/server/services/scim/users";
import { defineOperation, inOrganization } from "./operation";

// An organization's directory sync, as its admins manage it: the tokens its directory calls the
// SCIM service (/api/scim/v2) with, the people and groups it provisioned, which org roles each group
// grants, and the latest requests. The SCIM service itself is not part of this API: it speaks SCIM.

const tag = "Directory sync";
const read = { permission: "svc:org:scim:read", org: "org_id" } as const;
const write = { permission: "svc:org:scim:write", org: "org_id" } as const;
const tokens = inOrganization("scim-tokens", "credential_id", {
  read: "svc:org:scim:read",
  write: "svc:org:scim:write",
});
const groups = inOrganization("scim-groups", "group_id", { read: "svc:org:scim:read", write: "svc:org:scim:write" });

export const scimOperations = {
  listTokens: defineOperation({
    id: "listScimTokens",
    method: "GET",
    path: tokens.BASE,
    tag,
    summary: "List an organization's SCIM tokens",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listScimTokensQuery,
    response: scimTokenListSchema,
    handler: ({ params, query, ...ctx }) => listScimTokens(ctx, params.org_id, query),
  }),
  createToken: defineOperation({
    id: "createScimToken",
    method: "POST",
    path: tokens.BASE,
    tag,
    summary: "Create a SCIM token",
    description:
      "Answers the token (`scim_…`) this once; the directory sends it as `Authorization: Bearer …` to `/api/scim/v2`. At most 10 live tokens per organization (409 `conflict`).",
    access: write,
    params: orgIdParams,
    body: createScimTokenInput,
    response: createdScimTokenSchema,
    created: (token) => token.id,
    errors: ["not_found", "conflict"],
    handler: ({ params, body, ...ctx }) => createScimToken(ctx, params.org_id, body),
  }),
  revokeToken: defineOperation({
    id: "revokeScimToken",
    method: "DELETE",
    path: tokens.ONE,
    tag,
    summary: "Revoke a SCIM token",
    description: "The directory's next request with it is refused (401). The token stays listed, revoked.",
    access: write,
    params: scimTokenParams,
    response: scimTokenSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => revokeScimToken(ctx, params.org_id, params.credential_id),
  }),
  listUsers: defineOperation({
    id: "listScimUsers",
    method: "GET",
    path: "/api/v1/organizations/{org_id}/scim-users",
    tag,
    summary: "List the people the organization's directory provisioned",
    description: "`active: false`: the directory suspended the person here (their membership reaches nothing).",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listScimUsersQuery,
    response: scimUserSummaryListSchema,
    handler: ({ params, query, ...ctx }) => listDirectoryUsers(ctx, params.org_id, query),
  }),
  listGroups: defineOperation({
    id: "listScimGroups",
    method: "GET",
    path: groups.BASE,
    tag,
    summary: "List the organization's directory groups",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listScimGroupsQuery,
    response: scimGroupSummaryListSchema,
    handler: ({ params, query, ...ctx }) => listDirectoryGroups(ctx, params.org_id, query),
  }),
  mapGroup: defineOperation({
    id: "mapScimGroup",
    method: "PATCH",
    path: groups.ONE,
    tag,
    summary: "Map a directory group to org roles",
    description:
      "The group's members hold these org roles in the organization, and lose them when they leave the group or the mapping changes. The caller must hold every permission of the roles it adds or removes (403 `scope_not_held`).",
    access: write,
    params: scimGroupParams,
    body: mapScimGroupInput,
    response: scimGroupSummarySchema,
    errors: ["not_found", "scope_not_held"],
    handler: ({ params, body, ...ctx }) => mapDirectoryGroup(ctx, params.org_id, params.group_id, body),
  }),
  listRequests: defineOperation({
    id: "listScimRequests",
    method: "GET",
    path: "/api/v1/organizations/{org_id}/scim-requests",
    tag,
    summary: "List the latest SCIM requests and their outcome",
    description: "The organization's directory's requests of the last 7 days, newest first.",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listScimRequestsQuery,
    response: scimRequestListSchema,
    handler: ({ params, query, ...ctx }) => listScimRequests(ctx, params.org_id, query),
  }),
};
