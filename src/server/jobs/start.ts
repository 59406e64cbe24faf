import "server-only";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { workEmail } from "@/server/email/worker";
import { log } from "@/server/log";
import { deliver } from "@/server/services/webhooks/deliver";
import { DELIVERY_QUEUE, type DeliveryJob } from "@/server/services/webhooks/outbox";
import { ensureQueue, startQueue, work } from "./queue";
import { SCHEDULED_JOBS } from "./registry";

// Starts the queue in an app process: the delivery workers and the scheduled jobs.

/** Delivery jobs fetched at once by one worker, and workers per process: up to 80 attempts at a time. */
const DELIVERY_BATCH = 20;
const DELIVERY_WORKERS = 4;

export function startJobs() {
  return startQueue(async (boss, state) => {
    await ensureQueue(boss, DELIVERY_QUEUE);
    await work<DeliveryJob>(boss, state, {
      queue: DELIVERY_QUEUE,
      batchSize: DELIVERY_BATCH,
      concurrency: DELIVERY_WORKERS,
      handle: (job) => deliver(readContext(systemActor("webhooks")), job),
    });
    await workEmail(boss, state);
    for (const job of SCHEDULED_JOBS) {
      await ensureQueue(boss, job.name, { retryLimit: 3 });
      await boss.schedule(job.name, job.cron, {}, { tz: "UTC" });
      await work<object>(boss, state, {
        queue: job.name,
        batchSize: 1,
        concurrency: 1,
        handle: async () => {
          try {
            const result = await job.run();
            log.info("scheduled job done", { job: job.name, result: JSON.stringify(result ?? null) });
          } catch (error) {
            log.warn("scheduled job failed", { job: job.name, error: (error as Error).message });
            throw error;
          }
        },
      });
      if (job.runAtStart) await boss.send(job.name, {}, { singletonKey: job.name, singletonSeconds: 60 });
    }
  });
}
