import "server-only";
import type { JobWithMetadata, PgBoss } from "pg-boss";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import type { QueueState } from "@/server/jobs/queue";
import { log } from "@/server/log";
import { inJobSpan } from "@/server/tracing/spans";
import { EMAIL_QUEUE, openMessage, type EmailJob } from "./outbox";
import { EMAIL_OUTCOME_RECORDERS, type EmailOutcome, type OutcomeRecorder } from "./outcomes";
import { sender, smtpTransport } from "./transport";

// The email worker: sends one queued message over SMTP and records its outcome. A temporary failure
// (connection refused, a 4xx reply) is retried by the queue with a growing delay; a permanent one
// (a 5xx reply) or the last retry records `failed`. Log lines name the message's subject, never
// its text: messages carry links that are secrets.

/** Retries after the first attempt, with delays doubling from RETRY_DELAY_SECONDS up to an hour. */
const EMAIL_RETRIES = 6;
const RETRY_DELAY_SECONDS = 15;

type Recorders = Record<string, () => Promise<OutcomeRecorder>>;

async function record(recorders: Recorders, job: EmailJob, outcome: EmailOutcome) {
  const load = recorders[job.about.kind];
  if (!load) return log.warn("no recorder for an email's outcome", { kind: job.about.kind, outcome });
  await (
    await load()
  )(readContext(systemActor("email")), job.about.id, outcome);
}

const permanent = (error: unknown) => {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === "number" && code >= 500;
};

/** Sends `job`'s message; throws to be retried while `retriesLeft`. */
async function sendQueuedEmail(
  job: EmailJob,
  retriesLeft: boolean,
  recorders: Recorders = EMAIL_OUTCOME_RECORDERS,
): Promise<void> {
  const transport = smtpTransport();
  if (!transport) {
    // SMTP_URL was removed since the message was queued.
    log.warn("email not sent: SMTP_URL is not set", { kind: job.about.kind, id: job.about.id });
    return record(recorders, job, "failed");
  }
  const message = openMessage(job);
  try {
    await transport.sendMail({ from: sender(), ...message });
  } catch (error) {
    const detail = { kind: job.about.kind, id: job.about.id, error: (error as Error).message };
    if (retriesLeft && !permanent(error)) {
      log.warn("email not sent yet; it is tried again", detail);
      throw new Error("email not sent yet");
    }
    log.warn("email not sent", detail);
    return record(recorders, job, "failed");
  }
  await record(recorders, job, "sent");
}

/** Creates the email queue and registers its worker in this process. */
export async function workEmail(boss: PgBoss, state: QueueState, recorders: Recorders = EMAIL_OUTCOME_RECORDERS) {
  await boss.createQueue(EMAIL_QUEUE, {
    expireInSeconds: 60,
    retryLimit: EMAIL_RETRIES,
    retryDelay: RETRY_DELAY_SECONDS,
    retryBackoff: true,
    retryDelayMax: 3_600,
    deleteAfterSeconds: 86_400,
  });
  const id = await boss.work(
    EMAIL_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: 1, includeMetadata: true },
    async (jobs: JobWithMetadata<EmailJob>[]) => {
      for (const job of jobs)
        await inJobSpan(EMAIL_QUEUE, job.data, () =>
          sendQueuedEmail(job.data, job.retryCount < job.retryLimit, recorders),
        );
    },
  );
  state.workers.set(EMAIL_QUEUE, [id]);
}
