import { z } from "zod";
import { cursor, id, limit } from "@/lib/schemas/common";
import { listMembersQuery } from "@/lib/schemas/members";
import { listConversations, listMessages } from "@/server/services/conversations/service";
import { listMembers } from "@/server/services/memberships/service";
import { createTRPCRouter, orgProcedure } from "../init";

// The read-only conversation viewer of an organization's page: pick a member, list their
// conversations, read one conversation's messages in order. Nothing here writes.

export const conversationsRouter = createTRPCRouter({
  /** The organization's members to pick from (search by username, display name or email). */
  members: orgProcedure("svc:org:members:read", { list: true })
    .input(z.object({ ...listMembersQuery.shape, org_id: id }))
    .query(({ ctx, input: { org_id, ...query } }) => listMembers(ctx.actor, org_id, query)),

  /** A member's conversations in the organization, newest first. */
  list: orgProcedure("svc:conversations:read", { list: true })
    .input(z.object({ org_id: id, user_id: id, instance_id: id.optional(), limit, cursor }))
    .query(({ ctx, input: { org_id, ...query } }) => listConversations(ctx.actor, org_id, query)),

  /** A conversation's history, oldest first, without intent messages, a page at a time. */
  messages: orgProcedure("svc:conversations:read")
    .input(z.object({ org_id: id, conversation_id: id, limit, cursor }))
    .query(({ ctx, input: { org_id, conversation_id, ...query } }) => listMessages(ctx.actor, org_id, conversation_id, query)),
});
