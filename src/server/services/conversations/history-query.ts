import "server-only";

// The statements that read and write messages, apart from the service that runs them: the message
// history benchmark runs and explains the very same text.

// created_at as ISO 8601 with microseconds: the exact ordering key, for responses and cursors.
export const MESSAGE_COLUMNS = `id, conv_id, turn_id, user_id, instance_id, role, content, status, is_compacted, source, metadata,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at`;

/**
 * The history query: one statement finds the conversation (in this organization, neither deleted,
 * and the caller's own unless $4 is null) and reads one page of it; no row means no such
 * conversation. Parameters: $1 conversation, $2 organization, $3 rows to read, $4 the owner the
 * conversation must have (null: any), and after a cursor $5 created_at, $6 id. The conversation is
 * named by value inside the page query too, so the planner can use its statistics (a long
 * conversation gets the index's order, not a sort of all its rows); the lower bounds on created_at
 * (no message predates its conversation, nor the cursor) let PostgreSQL skip older partitions.
 */
export function historyQuery(withCursor: boolean): string {
  return `SELECT c.instance_id AS conversation_instance_id, m.*
     FROM conversations c
     LEFT JOIN LATERAL (
       SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE conv_id = $1::uuid AND role <> 'intent' AND messages.created_at >= c.created_at
         ${withCursor ? "AND messages.created_at >= $5::timestamptz AND (messages.created_at, messages.id) > ($5::timestamptz, $6::uuid)" : ""}
       ORDER BY messages.created_at, messages.id -- the columns, not the text alias: the index gives this order
       LIMIT $3
     ) m ON true
     WHERE c.id = $1::uuid AND c.org_id = $2::uuid AND NOT c.is_deleted AND ($4::uuid IS NULL OR c.user_id = $4::uuid)
       AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = c.org_id AND NOT o.is_deleted)
     ORDER BY m.created_at, m.id`;
}
