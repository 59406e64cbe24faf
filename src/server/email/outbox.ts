import "server-only";
import { randomUUID } from "node:crypto";
import type { Context } from "@/server/db/context";
import { keyRing } from "@/server/crypto/key-ring";
import { decrypt, encrypt } from "@/server/crypto/secret-box";
import { runningQueue, wake } from "@/server/jobs/queue";
import { transactionSink } from "@/server/services/webhooks/events";
import { currentTraceparent } from "@/server/tracing/spans";
import { emailConfigured } from "./transport";

// Email is queued, never sent on the request path: the message becomes a job in the caller's
// transaction (a rolled-back change sends nothing), encrypted, because messages carry links that
// are secrets and the job table is not a place for them. The worker (worker.ts) sends it and
// reports the outcome to whatever asked. See docs/decisions/055-email-queue.md.

export const EMAIL_QUEUE = "email";

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** What a message is about: its outcome is recorded there by the recorder of `kind` (outcomes.ts). */
export interface EmailSubject {
  kind: string;
  id: string;
}

/** A delivery's state as the thing that asked records it. */
export type EmailDelivery = "queued" | "sent" | "failed" | "not_configured";

export interface EmailJob {
  id: string;
  about: EmailSubject;
  /** The message, encrypted (secret-box) and bound to the job's id. */
  sealed: string;
  /** The span of the request that queued it, which the sending's trace links to. */
  traceparent?: string;
}

const place = (id: string) => `email:${id}`;

const sealMessage = (id: string, message: EmailMessage): string =>
  encrypt(keyRing(), JSON.stringify(message), place(id));

export const openMessage = (job: EmailJob): EmailMessage =>
  JSON.parse(decrypt(keyRing(), job.sealed, place(job.id))) as EmailMessage;

/**
 * Queues `message` in `ctx`'s transaction. Answers `not_configured` when SMTP_URL is unset (nothing
 * is queued), `failed` when no queue runs in this process (the CLI, SVC_JOBS=0), else `queued`.
 */
export async function queueEmail(
  ctx: Pick<Context, "db" | "afterCommit">,
  message: EmailMessage,
  about: EmailSubject,
): Promise<EmailDelivery> {
  if (!emailConfigured()) return "not_configured";
  const state = await runningQueue()?.catch(() => undefined);
  if (!state) return "failed";
  const id = randomUUID();
  const traceparent = currentTraceparent();
  const job: EmailJob = { id, about, sealed: sealMessage(id, message), ...(traceparent && { traceparent }) };
  await state.boss.insert(EMAIL_QUEUE, [{ data: job }], { db: transactionSink(ctx.db) });
  ctx.afterCommit(() => wake(EMAIL_QUEUE));
  return "queued";
}
