import "server-only";

// The app's scheduled work, run by the job queue (jobs/queue.ts) on a cron schedule: once per
// occurrence across every replica, in whichever process takes it. To add a job, add an entry here;
// `runAtStart` also queues it once shortly after a process starts (at most once a minute across
// replicas). A job's `run` may throw: it is retried by the queue and the failure is logged.

export interface ScheduledJob {
  /** The queue's name: lowercase words and dashes. */
  name: string;
  /** Cron expression (UTC). */
  cron: string;
  description: string;
  runAtStart?: boolean;
  run(): Promise<unknown>;
}

/** The context a job acts in, as the system component `name`, on the pool. */
async function jobContext(name: string) {
  const [{ readContext }, { systemActor }] = await Promise.all([
    import("@/server/db/context"),
    import("@/server/auth/actor"),
  ]);
  return readContext(systemActor(name));
}

async function maintenanceClient<T>(work: (client: import("pg").Client) => Promise<T>): Promise<T> {
  const [{ connectClient }, { maintenanceConnectionSettings }, { env }] = await Promise.all([
    import("@/server/db/pooler"),
    import("@/server/db/client"),
    import("@/server/env"),
  ]);
  // A session of its own, through the direct URL when DATABASE_URL names a transaction pooler.
  const { DATABASE_DIRECT_URL, DATABASE_URL } = env();
  const client = await connectClient({
    connectionString: DATABASE_DIRECT_URL || DATABASE_URL,
    ...maintenanceConnectionSettings(),
  });
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const SCHEDULED_JOBS: readonly ScheduledJob[] = [
  {
    name: "message-partitions",
    cron: "17 */6 * * *",
    description: "Keeps the monthly partitions of messages ready three months ahead.",
    runAtStart: true,
    run: async () => {
      const { ensureMessagePartitions } = await import("@/server/db/partitions");
      return maintenanceClient((client) => ensureMessagePartitions(client));
    },
  },
  {
    name: "audit-retention",
    cron: "23 */6 * * *",
    description: "Removes audit events older than audit.retention_days.",
    runAtStart: true,
    run: async () => {
      const { purgeAuditEvents } = await import("@/server/services/audit/retention");
      return maintenanceClient((client) => purgeAuditEvents(client));
    },
  },
  {
    name: "api-key-expiry-events",
    cron: "*/5 * * * *",
    description: "Emits api_key.expiring (7 days and 1 day before expires_at) and api_key.expired, once each.",
    runAtStart: true,
    run: async () =>
      (await import("@/server/services/webhooks/key-events")).emitKeyExpiryEvents(await jobContext("webhooks")),
  },
  {
    name: "api-key-idle-revocation",
    cron: "41 * * * *",
    description: "Revokes keys unused for api_keys.idle_revoke_days (audited) and emits api_key.idle_revoked for each.",
    runAtStart: true,
    run: async () => {
      const { IDLE_REVOKER, revokeIdleKeys } = await import("@/server/services/api-keys/revocation");
      return revokeIdleKeys(await jobContext(IDLE_REVOKER.name));
    },
  },
  {
    name: "domain-recheck",
    cron: "37 3 * * *",
    description:
      "Looks up the TXT record of every verified domain; one missing for 7 days turns the domain failed (audited, domain.failed).",
    run: async () => {
      const { DOMAIN_RECHECKER, recheckDomains } = await import("@/server/services/domains/recheck");
      return recheckDomains(await jobContext(DOMAIN_RECHECKER.name));
    },
  },
  {
    name: "invitation-expiry",
    cron: "*/5 * * * *",
    description: "Marks pending invitations past their expiry as expired and emits invitation.expired for each.",
    runAtStart: true,
    run: async () =>
      (await import("@/server/services/invitations/expiry")).expireInvitations(await jobContext("invitations")),
  },
  {
    name: "scim-request-retention",
    cron: "47 */6 * * *",
    description: "Removes the SCIM requests listed for organizations' admins once they are 7 days old.",
    run: async () => (await import("@/server/services/scim/requests")).pruneScimRequests(await jobContext("scim")),
  },
  {
    name: "webhook-upkeep",
    cron: "* * * * *",
    description:
      "Queues deliveries left without a job (written by the CLI, or after a lost job) and removes deliveries and messages older than 30 days.",
    runAtStart: true,
    run: async () => (await import("@/server/services/webhooks/upkeep")).webhookUpkeep(await jobContext("webhooks")),
  },
];
