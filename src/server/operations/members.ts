import "server-only";
import { addMemberInput, listMembersQuery, memberListSchema, memberParams, memberSchema } from "@/lib/schemas/members";
import { MAX_ORGANIZATIONS_PER_USER, orgIdParams } from "@/lib/schemas/organizations";
import { grantOrgRoleInput, grantSchema, memberRoleParams } from "@/lib/schemas/roles";
import { addMember, getMember, listMembers, removeMember } from "@/server/services/memberships/service";
import { grantOrgRole, revokeOrgRole } from "@/server/services/roles/grants";
import { defineOperation, inOrganization } from "./operation";

// An organization's members and their org roles, managed by whoever holds svc:org:members:write
// in that organization (dangerous: console sessions only).

const tag = "Members";
const { BASE, ONE, read, write } = inOrganization("members", "user_id", {
  read: "svc:org:members:read",
  write: "svc:org:members:write",
});

export const memberOperations = {
  list: defineOperation({
    id: "listMembers",
    method: "GET",
    path: BASE,
    tag,
    summary: "An organization's members",
    description: "With the org roles each holds there. `q` matches username, display name or email.",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listMembersQuery,
    response: memberListSchema,
    handler: ({ params, query, ...ctx }) => listMembers(ctx, params.org_id, query),
  }),
  add: defineOperation({
    id: "addMember",
    method: "POST",
    path: BASE,
    tag,
    summary: "Add a user to an organization",
    description: `Within the tier's \`max_members\`, and at most ${MAX_ORGANIZATIONS_PER_USER.toLocaleString("en")} organizations for one user (403 \`quota_exceeded\`). 409 \`conflict\` when already a member.`,
    access: write,
    params: orgIdParams,
    body: addMemberInput,
    response: memberSchema,
    created: (member) => member.user_id,
    errors: ["not_found", "conflict", "quota_exceeded"],
    handler: ({ params, body, ...ctx }) => addMember(ctx, params.org_id, body),
  }),
  get: defineOperation({
    id: "getMember",
    method: "GET",
    path: ONE,
    tag,
    summary: "One member of an organization",
    access: read,
    params: memberParams,
    response: memberSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getMember(ctx, params.org_id, params.user_id),
  }),
  remove: defineOperation({
    id: "removeMember",
    method: "DELETE",
    path: ONE,
    tag,
    summary: "Remove a user from an organization",
    description:
      "Their org roles there go too, so the caller must hold every permission of those roles (403 `scope_not_held`). A service account cannot be removed, only deleted (409). Answers the removed membership.",
    access: write,
    params: memberParams,
    response: memberSchema,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ params, ...ctx }) => removeMember(ctx, params.org_id, params.user_id),
  }),
  grantRole: defineOperation({
    id: "grantOrgRole",
    method: "POST",
    path: `${ONE}/roles`,
    tag,
    summary: "Grant an org role to a member, in this organization",
    description:
      "Org roles only. A non-sys_admin must hold every permission of the role in this organization (403 `scope_not_held`).",
    access: write,
    params: memberParams,
    body: grantOrgRoleInput,
    response: grantSchema,
    created: (grant) => grant.role.id,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ params, body, ...ctx }) => grantOrgRole(ctx, params.org_id, params.user_id, body.role_id),
  }),
  revokeRole: defineOperation({
    id: "revokeOrgRole",
    method: "DELETE",
    path: `${ONE}/roles/{role_id}`,
    tag,
    summary: "Revoke a member's org role in this organization",
    description: "A non-sys_admin must hold every permission of the role in this organization (403 `scope_not_held`).",
    access: write,
    params: memberRoleParams,
    response: grantSchema,
    errors: ["not_found", "scope_not_held"],
    handler: ({ params, ...ctx }) => revokeOrgRole(ctx, params.org_id, params.user_id, params.role_id),
  }),
};
