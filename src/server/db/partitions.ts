import "server-only";
import type pg from "pg";

/** Months of message partitions kept ready ahead of the current one. */
export const PARTITION_MONTHS_AHEAD = 3;

/**
 * Creates the monthly partitions of `messages` from this month to `monthsAhead` months ahead
 * (the SQL function of the initial migration); returns how many it created.
 */
export async function ensureMessagePartitions(
  client: Pick<pg.ClientBase, "query">,
  monthsAhead = PARTITION_MONTHS_AHEAD,
): Promise<number> {
  const { rows } = await client.query<{ created: number }>(
    "SELECT svc_ensure_message_partitions($1::integer) AS created",
    [monthsAhead],
  );
  return rows[0]?.created ?? 0;
}
