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

const MAINTENANCE_INTERVAL_MS = 6 * 3600_000;

/**
 * The app's maintenance while it runs, once shortly after start, then every six hours: message
 * partitions kept ready (so a long-running process never writes a new month into the default
 * partition), and audit events older than `audit.retention_days` removed.
 */
export function schedulePartitionMaintenance(url: string, onError: (error: Error) => void): NodeJS.Timeout {
  const run = async () => {
    const [{ connectClient }, { maintenanceConnectionSettings }, { purgeAuditEvents }] = await Promise.all([
      import("./pooler"),
      import("./client"),
      import("@/server/services/audit/service"),
    ]);
    let client: Awaited<ReturnType<typeof connectClient>> | undefined;
    try {
      client = await connectClient({ connectionString: url, ...maintenanceConnectionSettings() });
      await ensureMessagePartitions(client);
      await purgeAuditEvents(client);
    } catch (error) {
      onError(error as Error);
    } finally {
      await client?.end().catch(() => undefined);
    }
  };
  setTimeout(() => void run(), 5_000).unref();
  return setInterval(() => void run(), MAINTENANCE_INTERVAL_MS).unref();
}
