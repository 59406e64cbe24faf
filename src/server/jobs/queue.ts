import "server-only";
import { PgBoss, type Job } from "pg-boss";
import { env } from "@/server/env";
import { onShutdown } from "@/server/lifecycle";
import { log } from "@/server/log";
import { processState } from "@/server/process-state";
import { inJobSpan } from "@/server/tracing/spans";

// The app's job queue: pg-boss, in the app's own database (schema `pgboss`, the embedded one too),
// holding webhook deliveries and the scheduled jobs (jobs/registry.ts). Each job runs in one process
// at a time across replicas, and one whose process died runs again after its expiry. It needs a
// session connection: DATABASE_DIRECT_URL when set, else DATABASE_URL. See docs/decisions/030-job-queue.md.

export const QUEUE_SCHEMA = "pgboss";
/** A job active longer than this is taken to be lost with its process and is run again (seconds). */
const JOB_EXPIRY_SECONDS = 30;

/** A pg-boss `db` that runs statements wherever the caller says (in a transaction, at its commit). */
export interface StatementSink {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface QueueWorker<T> {
  queue: string;
  /** Jobs fetched at once; they are handled side by side. */
  batchSize: number;
  /** Workers in this process. */
  concurrency: number;
  /** Handles one job; should it throw, the job is retried by pg-boss later. */
  handle(data: T): Promise<void>;
}

export interface QueueState {
  boss: PgBoss;
  workers: Map<string, string[]>;
}

const shared = processState("jobQueue", () => ({}));

/** The queue of this process, once started (undefined where none runs: the CLI, SVC_JOBS=0). */
export const runningQueue = (): Promise<QueueState> | undefined => shared.started;

/** Starts the queue in this process (once): creates its schema when missing, then its workers. */
export function startQueue(setup: (boss: PgBoss, state: QueueState) => Promise<void>): Promise<QueueState> {
  if (shared.started) return shared.started;
  const { DATABASE_DIRECT_URL, DATABASE_URL } = env();
  const connectionString = DATABASE_DIRECT_URL ?? DATABASE_URL;
  if (!connectionString) throw new Error("the job queue needs DATABASE_URL");
  const boss = new PgBoss({
    // Jobs are traced by work() below, one trace per job (pg-boss's own spans trace a fetched batch).
    openTelemetry: { enabled: false },
    connectionString,
    schema: QUEUE_SCHEMA,
    application_name: "svc-queue",
    max: 4,
    superviseIntervalSeconds: 10,
    monitorIntervalSeconds: 10,
    queueCacheIntervalSeconds: 10,
  });
  boss.on("error", (error) => log.warn("job queue error", { error: (error as Error).message }));
  const state: QueueState = { boss, workers: new Map() };
  // Registered before the start: a shutdown during it (pg-boss's stop waits for a start in flight)
  // must still close the queue's connections, not leave them to be dropped at the exit. Jobs in
  // flight get a little less than the phase's 5 s, so that pg-boss closes its connections within it.
  onShutdown("stop", () => boss.stop({ graceful: true, timeout: 4_000 }));
  shared.started = (async () => {
    await boss.start();
    await setup(boss, state);
    return state;
  })();
  shared.started.catch((error: Error) => {
    shared.started = undefined;
    log.warn("the job queue did not start", { error: error.message });
  });
  return shared.started;
}

/** Creates `queue` when missing, with the expiry that lets a crashed job run again. */
export async function ensureQueue(boss: PgBoss, queue: string, options: { retryLimit?: number } = {}): Promise<void> {
  await boss.createQueue(queue, {
    expireInSeconds: JOB_EXPIRY_SECONDS,
    retryLimit: options.retryLimit ?? 1_000,
    retryDelay: 1,
    deleteAfterSeconds: 86_400,
  });
}

/** Registers `worker` in this process; each job it handles is a trace of its own. */
export async function work<T extends object>(boss: PgBoss, state: QueueState, worker: QueueWorker<T>) {
  const ids: string[] = [];
  for (let i = 0; i < worker.concurrency; i++) {
    ids.push(
      await boss.work<T>(
        worker.queue,
        // A full batch means more is waiting: fetch again at once instead of after the poll interval.
        { batchSize: worker.batchSize, pollingIntervalSeconds: 0.5, burstWhenBatchFull: worker.batchSize > 1 },
        async (jobs: Job<T>[]) => {
          // A job that throws is failed alone and retried by pg-boss; the others complete.
          const outcomes = await Promise.allSettled(
            jobs.map((job) => inJobSpan(worker.queue, job.data, () => worker.handle(job.data))),
          );
          const failed = outcomes.find((o) => o.status === "rejected");
          if (!failed) return;
          const error = (failed as PromiseRejectedResult).reason as Error;
          if (error.name !== "DeliveryBusy")
            log.warn("a queued job failed; it runs again", { queue: worker.queue, error: error.message });
          throw error;
        },
      ),
    );
  }
  state.workers.set(worker.queue, ids);
}

/** Wakes this process's workers of `queue` (after a commit that queued jobs), instead of their next poll. */
export function wake(queue: string): void {
  void shared.started?.then((state) => {
    for (const id of state.workers.get(queue) ?? []) state.boss.notifyWorker(id);
  });
}

/** Jobs of `queue` waiting (created or retry) and active as pg-boss last counted them, for metrics. */
export async function queueDepth(queue: string): Promise<{ queued: number; active: number } | undefined> {
  const state = await shared.started?.catch(() => undefined);
  if (!state) return undefined;
  const stats = await state.boss.getQueue(queue).catch(() => null);
  return stats ? { queued: stats.queuedCount, active: stats.activeCount } : undefined;
}
