import { z } from "zod";
import { id, includeDeleted, listOf, pageQuery, softDeletedRecord } from "./common";

// Conversations and their messages. History reads leave out `intent` messages.

/** `unknown`: what the runtime's mapping produces for a role it does not know. */
export const MESSAGE_ROLES = ["user", "assistant", "tool", "intent", "unknown"] as const;
export const MESSAGE_STATUSES = ["pending", "streaming", "complete", "error", "cancelled"] as const;
export const MESSAGE_SOURCES = ["human", "agent", "system", "tool", "import"] as const;

export const createConversationInput = z.strictObject({
  instance_id: id,
  user_id: id.optional().describe("A member of the organization; the caller by default."),
  title: z.string().trim().max(500).nullable().optional(),
});
export type CreateConversationInput = z.output<typeof createConversationInput>;

export const listConversationsQuery = pageQuery.extend({
  user_id: id.optional().describe("Whose conversations; the caller by default."),
  instance_id: id.optional(),
  include_deleted: includeDeleted,
});
export type ListConversationsQuery = z.output<typeof listConversationsQuery>;

export const conversationParams = z.strictObject({ org_id: id, conversation_id: id });

export const conversationSchema = z.object({
  id: z.uuid(),
  org_id: z.uuid(),
  user_id: z.uuid(),
  instance_id: z.uuid().nullable(),
  title: z.string().nullable(),
  ...softDeletedRecord,
});
export type Conversation = z.infer<typeof conversationSchema>;
export const conversationListSchema = listOf(conversationSchema);

export const newMessage = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.string().max(1_000_000),
  turn_id: id.describe("Groups the messages of one turn."),
  status: z.enum(MESSAGE_STATUSES).nullable().optional(),
  source: z.enum(MESSAGE_SOURCES).default("human"),
  metadata: z.record(z.string(), z.json()).default({}),
});

export const appendMessagesInput = z.strictObject({ messages: z.array(newMessage).min(1).max(100) });
export type AppendMessagesInput = z.output<typeof appendMessagesInput>;

export const listMessagesQuery = pageQuery;
export type ListMessagesQuery = z.output<typeof listMessagesQuery>;

export const compactMessagesInput = z.strictObject({ message_ids: z.array(id).min(1).max(1000) });

export const messageSchema = z.object({
  id: z.uuid(),
  conv_id: z.uuid(),
  turn_id: z.uuid(),
  user_id: z.uuid(),
  instance_id: z.uuid().nullable(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  status: z.string().nullable(),
  is_compacted: z.boolean(),
  source: z.string(),
  metadata: z.record(z.string(), z.json()),
  created_at: z.string().describe("ISO 8601 UTC with microseconds: the order of the conversation."),
});
export type Message = z.infer<typeof messageSchema>;
export const messageListSchema = listOf(messageSchema);
