import { z } from "zod";
import {
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  list,
  listOf,
  pageQuery,
  softDeletedRecord,
  text,
  timestamp,
} from "./common";

// Conversations and their messages. History reads leave out `intent` messages.

/** `unknown`: what the runtime's mapping produces for a role it does not know. */
const MESSAGE_ROLES = ["user", "assistant", "tool", "intent", "unknown"] as const;
const MESSAGE_STATUSES = ["pending", "streaming", "complete", "error", "cancelled"] as const;
const MESSAGE_SOURCES = ["human", "agent", "system", "tool", "import"] as const;

/** A conversation's title: a column of 500 characters. */
const TITLE_LENGTH = 500;
/**
 * A message's content: what a model said or was told, tool output included, which runs longer than
 * other free text; a body of 1 MiB holds it.
 */
const CONTENT_LENGTH = 1_000_000;
/** The most messages one append holds. */
export const MAX_APPENDED_MESSAGES = 100;
/** A message's metadata: a JSON object with field names of a column's length. */
const metadata = z.record(text(), z.json());

export const createConversationInput = z
  .strictObject({
    instance_id: id,
    user_id: id.optional().describe("A member of the organization; the caller by default."),
    title: text(TITLE_LENGTH).trim().nullable().optional(),
  })
  .meta({ examples: [{ instance_id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a", title: "Where is order 1042?" }] });
export type CreateConversationInput = z.output<typeof createConversationInput>;

export const listConversationsQuery = pageQuery.extend({
  user_id: id.optional().describe("Whose conversations; the caller by default."),
  instance_id: id.optional(),
  include_deleted: includeDeleted,
});
export type ListConversationsQuery = z.output<typeof listConversationsQuery>;

export const conversationParams = z.strictObject({ org_id: id, conversation_id: id });

export const conversationSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    user_id: z.uuid(),
    instance_id: z.uuid().nullable(),
    title: text(TITLE_LENGTH).nullable(),
    ...softDeletedRecord,
  })
  .meta({
    id: "Conversation",
    examples: [
      {
        id: "0193a5c8-1c2d-7e3f-8a4b-5c6d7e8f9a0b",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        instance_id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a",
        title: "Where is order 1042?",
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type Conversation = z.input<typeof conversationSchema>;
export const conversationListSchema = listOf(conversationSchema);

const newMessage = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: text(CONTENT_LENGTH),
  turn_id: id.describe("Groups the messages of one turn."),
  status: z.enum(MESSAGE_STATUSES).nullable().optional(),
  source: z.enum(MESSAGE_SOURCES).default("human"),
  metadata: metadata.default({}),
});

export const appendMessagesInput = z.strictObject({ messages: list(newMessage, MAX_APPENDED_MESSAGES).min(1) }).meta({
  examples: [
    {
      messages: [{ role: "user", content: "Where is my order 1042?", turn_id: "0193a5c8-3e4f-7a5b-9c6d-7e8f9a0b1c2d" }],
    },
  ],
});
export type AppendMessagesInput = z.output<typeof appendMessagesInput>;

export const listMessagesQuery = pageQuery;
export type ListMessagesQuery = z.output<typeof listMessagesQuery>;

export const compactMessagesInput = z.strictObject({ message_ids: list(id, 1000).min(1) });

export const messageSchema = z
  .object({
    id: z.uuid(),
    conv_id: z.uuid(),
    turn_id: z.uuid(),
    user_id: z.uuid(),
    instance_id: z.uuid().nullable(),
    role: z.enum(MESSAGE_ROLES),
    content: text(CONTENT_LENGTH),
    status: text(20).nullable(),
    is_compacted: z.boolean(),
    source: text(20),
    metadata,
    created_at: timestamp.describe("ISO 8601 UTC with microseconds: the order of the conversation."),
  })
  .meta({
    id: "Message",
    examples: [
      {
        id: "0193a5c8-5a6b-7c7d-8e8f-9a0b1c2d3e4f",
        conv_id: "0193a5c8-1c2d-7e3f-8a4b-5c6d7e8f9a0b",
        turn_id: "0193a5c8-3e4f-7a5b-9c6d-7e8f9a0b1c2d",
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        instance_id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a",
        role: "user",
        content: "Where is my order 1042?",
        status: "complete",
        is_compacted: false,
        source: "human",
        metadata: {},
        created_at: "2026-01-15T09:30:00.123456Z",
      },
    ],
  });
export type Message = z.input<typeof messageSchema>;
export const messageListSchema = listOf(messageSchema);
