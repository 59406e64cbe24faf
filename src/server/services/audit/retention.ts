import "server-only";
import type pg from "pg";

// Keeping the audit trail to its retention: the maintenance job removes events older than the
// platform setting allows, and the seed writes the setting's default.

export const RETENTION_SETTING = "audit.retention_days";
export const DEFAULT_RETENTION_DAYS = 365;

/** Removes events older than `audit.retention_days` (default 365); returns how many. */
export async function purgeAuditEvents(client: Pick<pg.ClientBase, "query">): Promise<number> {
  const result = await client.query(
    `DELETE FROM audit_events WHERE occurred_at < now() - make_interval(days => COALESCE(
       (SELECT (value #>> '{}')::integer FROM platform_settings
         WHERE key = $1 AND is_deleted = false AND jsonb_typeof(value) = 'number' AND (value #>> '{}') ~ '^[1-9][0-9]{0,5}$'),
       $2))`,
    [RETENTION_SETTING, DEFAULT_RETENTION_DAYS],
  );
  return result.rowCount ?? 0;
}
