import { z } from "zod";
import {
  appendMessagesInput,
  compactMessagesInput,
  conversationListSchema,
  conversationParams,
  conversationSchema,
  createConversationInput,
  listConversationsQuery,
  listMessagesQuery,
  messageListSchema,
  messageSchema,
} from "@/lib/schemas/conversations";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  appendMessages,
  compactMessages,
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  listMessages,
} from "@/server/services/conversations/service";
import { defineRoute, RouteResult } from "../route";

const tag = "Conversations";
const BASE = "/api/v1/organizations/{org_id}/conversations";
const ONE = `${BASE}/{conversation_id}`;
const read = { permission: "svc:conversations:read", org: "org_id" } as const;
const write = { permission: "svc:conversations:write", org: "org_id" } as const;

export const conversationRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listConversations", tag, list: true,
    summary: "List a user's conversations",
    access: read,
    params: orgIdParams,
    query: listConversationsQuery,
    response: conversationListSchema,
    handler: ({ actor, params, query }) => listConversations(actor, params.org_id, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createConversation", tag,
    summary: "Start a conversation on an orchestrator instance",
    access: write,
    params: orgIdParams,
    body: createConversationInput,
    response: conversationSchema,
    status: 201,
    errors: ["not_found"],
    handler: async ({ actor, params, body }) => {
      const conversation = await createConversation(actor, params.org_id, body);
      return new RouteResult(conversation, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/conversations/${conversation.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getConversation", tag,
    summary: "Read a conversation",
    access: read,
    params: conversationParams,
    response: conversationSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getConversation(actor, params.org_id, params.conversation_id),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "deleteConversation", tag,
    summary: "Delete a conversation (soft)",
    access: write,
    params: conversationParams,
    response: conversationSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => deleteConversation(actor, params.org_id, params.conversation_id),
  }),
  defineRoute({
    method: "GET", path: `${ONE}/messages`, operationId: "listMessages", tag,
    summary: "Read a conversation's history",
    description: "In order, oldest first, without `intent` messages; cursor-paginated.",
    access: read,
    params: conversationParams,
    query: listMessagesQuery,
    response: messageListSchema,
    errors: ["not_found"],
    handler: ({ actor, params, query }) => listMessages(actor, params.org_id, params.conversation_id, query),
  }),
  defineRoute({
    method: "POST", path: `${ONE}/messages`, operationId: "appendMessages", tag,
    summary: "Append messages",
    description: "Up to 100 messages, stored in the given order.",
    access: write,
    params: conversationParams,
    body: appendMessagesInput,
    response: z.object({ data: z.array(messageSchema) }),
    status: 201,
    errors: ["not_found"],
    handler: async ({ actor, params, body }) => new RouteResult(await appendMessages(actor, params.org_id, params.conversation_id, body), { status: 201 }),
  }),
  defineRoute({
    method: "POST", path: `${ONE}/messages/compact`, operationId: "compactMessages", tag,
    summary: "Mark messages as compacted",
    access: write,
    params: conversationParams,
    body: compactMessagesInput,
    response: z.object({ compacted: z.number().int() }),
    errors: ["not_found"],
    handler: ({ actor, params, body }) => compactMessages(actor, params.org_id, params.conversation_id, body.message_ids),
  }),
];
