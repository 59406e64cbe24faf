import { addMemberInput, listMembersQuery, memberListSchema, memberParams, memberSchema } from "@/lib/schemas/members";
import { orgIdParams } from "@/lib/schemas/organizations";
import { grantOrgRoleInput, grantSchema, memberRoleParams } from "@/lib/schemas/roles";
import { addMember, getMember, listMembers, removeMember } from "@/server/services/memberships/service";
import { grantOrgRole, revokeOrgRole } from "@/server/services/roles/service";
import { defineRoute, RouteResult } from "../route";

// An organization's members and their org roles, managed by whoever holds svc:org:members:write
// in that organization (dangerous: console sessions only).

const BASE = "/api/v1/organizations/{org_id}/members";
const ONE = `${BASE}/{user_id}`;
const tag = "Members";

export const memberRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listMembers", tag,
    summary: "An organization's members",
    description: "With the org roles each holds there. `q` matches username, display name or email.",
    access: { permission: "svc:org:members:read", org: "org_id" },
    list: true,
    params: orgIdParams,
    query: listMembersQuery,
    response: memberListSchema,
    handler: ({ actor, params, query }) => listMembers(actor, params.org_id, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "addMember", tag,
    summary: "Add a user to an organization",
    description: "Within the tier's `max_members` (403 `quota_exceeded`). 409 `conflict` when already a member.",
    access: { permission: "svc:org:members:write", org: "org_id" },
    params: orgIdParams,
    body: addMemberInput,
    response: memberSchema,
    status: 201,
    errors: ["not_found", "conflict", "quota_exceeded"],
    handler: async ({ actor, params, body }) => {
      const member = await addMember(actor, params.org_id, body);
      return new RouteResult(member, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/members/${member.user_id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getMember", tag,
    summary: "One member of an organization",
    access: { permission: "svc:org:members:read", org: "org_id" },
    params: memberParams,
    response: memberSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getMember(actor, params.org_id, params.user_id),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "removeMember", tag,
    summary: "Remove a user from an organization",
    description: "Their org roles there go too. Answers the removed membership.",
    access: { permission: "svc:org:members:write", org: "org_id" },
    params: memberParams,
    response: memberSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => removeMember(actor, params.org_id, params.user_id),
  }),
  defineRoute({
    method: "POST", path: `${ONE}/roles`, operationId: "grantOrgRole", tag,
    summary: "Grant an org role to a member, in this organization",
    description: "Org roles only. A non-sys_admin must hold every permission of the role in this organization (403 `scope_not_held`).",
    access: { permission: "svc:org:members:write", org: "org_id" },
    params: memberParams,
    body: grantOrgRoleInput,
    response: grantSchema,
    status: 201,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: async ({ actor, params, body }) => {
      const grant = await grantOrgRole(actor, params.org_id, params.user_id, body.role_id);
      return new RouteResult(grant, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/members/${params.user_id}/roles/${body.role_id}` } });
    },
  }),
  defineRoute({
    method: "DELETE", path: `${ONE}/roles/{role_id}`, operationId: "revokeOrgRole", tag,
    summary: "Revoke a member's org role in this organization",
    description: "A non-sys_admin must hold every permission of the role in this organization (403 `scope_not_held`).",
    access: { permission: "svc:org:members:write", org: "org_id" },
    params: memberRoleParams,
    response: grantSchema,
    errors: ["not_found", "scope_not_held"],
    handler: ({ actor, params }) => revokeOrgRole(actor, params.org_id, params.user_id, params.role_id),
  }),
];
