import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { addMemberInput, listMembersQuery } from "@/lib/schemas/members";
import { grantOrgRoleInput } from "@/lib/schemas/roles";
import { addMember, getMember, listMembers, removeMember } from "@/server/services/memberships/service";
import { grantOrgRole, revokeOrgRole } from "@/server/services/roles/service";
import { createTRPCRouter, orgProcedure } from "../init";

// An organization's members and their org roles: the same services, schemas and permissions as the
// REST member routes (src/server/rest/routes/members.ts). Every procedure is organization-scoped:
// the middleware checks svc:org:members:* in the input's org_id (requireOrgPermission).

const orgInput = z.strictObject({ org_id: id });
const memberInput = orgInput.extend({ user_id: id });

export const membersRouter = createTRPCRouter({
  /** Members with the org roles each holds there; `q` matches username, display name or email. */
  list: orgProcedure("svc:org:members:read", { list: true })
    .input(z.object({ ...listMembersQuery.shape, org_id: id }))
    .query(({ ctx, input: { org_id, ...query } }) => listMembers(ctx.actor, org_id, query)),

  get: orgProcedure("svc:org:members:read")
    .input(memberInput)
    .query(({ ctx, input }) => getMember(ctx.actor, input.org_id, input.user_id)),

  /** Within the tier's max_members (FORBIDDEN quota_exceeded); CONFLICT when already a member. */
  add: orgProcedure("svc:org:members:write")
    .input(addMemberInput.extend({ org_id: id }))
    .mutation(({ ctx, input: { org_id, ...body } }) => addMember(ctx.actor, org_id, body)),

  /** Their org roles there go too. */
  remove: orgProcedure("svc:org:members:write")
    .input(memberInput)
    .mutation(({ ctx, input }) => removeMember(ctx.actor, input.org_id, input.user_id)),

  /** Org roles only, in this organization. */
  grantRole: orgProcedure("svc:org:members:write")
    .input(memberInput.extend(grantOrgRoleInput.shape))
    .mutation(({ ctx, input }) => grantOrgRole(ctx.actor, input.org_id, input.user_id, input.role_id)),

  revokeRole: orgProcedure("svc:org:members:write")
    .input(memberInput.extend({ role_id: id }))
    .mutation(({ ctx, input }) => revokeOrgRole(ctx.actor, input.org_id, input.user_id, input.role_id)),
});
