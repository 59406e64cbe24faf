import "server-only";
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
  MAX_APPENDED_MESSAGES,
  messageListSchema,
  messageSchema,
} from "@/lib/schemas/conversations";
import { orgIdParams } from "@/lib/schemas/organizations";
import { count, list } from "@/lib/schemas/common";
import {
  appendMessages,
  compactMessages,
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  listMessages,
  restoreConversation,
} from "@/server/services/conversations/service";
import { defineOperation, inOrganization } from "./operation";
import { softDeletable } from "./soft-delete";

// Conversations on an organization's orchestrator instances, and their messages.

const tag = "Conversations";
const { BASE, ONE, read, write } = inOrganization("conversations", "conversation_id", {
  read: "svc:conversations:read",
  write: "svc:conversations:write",
});

export const conversationOperations = {
  list: defineOperation({
    id: "listConversations",
    method: "GET",
    path: BASE,
    tag,
    summary: "List a user's conversations",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listConversationsQuery,
    response: conversationListSchema,
    handler: ({ params, query, ...ctx }) => listConversations(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createConversation",
    method: "POST",
    path: BASE,
    tag,
    summary: "Start a conversation on an orchestrator instance",
    access: write,
    params: orgIdParams,
    body: createConversationInput,
    response: conversationSchema,
    created: (c) => c.id,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => createConversation(ctx, params.org_id, body),
  }),
  messages: defineOperation({
    id: "listMessages",
    method: "GET",
    path: `${ONE}/messages`,
    tag,
    summary: "Read a conversation's history",
    description: "In order, oldest first, without `intent` messages; cursor-paginated.",
    access: read,
    params: conversationParams,
    query: listMessagesQuery,
    response: messageListSchema,
    errors: ["not_found"],
    handler: ({ params, query, ...ctx }) => listMessages(ctx, params.org_id, params.conversation_id, query),
  }),
  append: defineOperation({
    id: "appendMessages",
    method: "POST",
    path: `${ONE}/messages`,
    tag,
    summary: "Append messages",
    description: "Up to 100 messages, stored in the given order.",
    access: write,
    params: conversationParams,
    body: appendMessagesInput,
    response: z.object({ data: list(messageSchema, MAX_APPENDED_MESSAGES) }),
    status: 201,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => appendMessages(ctx, params.org_id, params.conversation_id, body),
  }),
  compact: defineOperation({
    id: "compactMessages",
    method: "POST",
    path: `${ONE}/messages/compact`,
    tag,
    summary: "Mark messages as compacted",
    access: write,
    params: conversationParams,
    body: compactMessagesInput,
    response: z.object({ compacted: count }),
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) =>
      compactMessages(ctx, params.org_id, params.conversation_id, body.message_ids),
  }),
  ...softDeletable({
    name: "Conversation",
    noun: "a conversation",
    path: ONE,
    tag,
    params: conversationParams,
    response: conversationSchema,
    access: { read, delete: write, restore: write },
    get: (ctx, p, options) => getConversation(ctx, p.org_id, p.conversation_id, options),
    delete: (ctx, p) => deleteConversation(ctx, p.org_id, p.conversation_id),
    restore: (ctx, p) => restoreConversation(ctx, p.org_id, p.conversation_id),
  }),
};
