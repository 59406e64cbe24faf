import { afterAll, describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { startQueue } from "@/server/jobs/queue";
import { testDatabase } from "@/test/database";
import { startMailReceiver } from "@/test/mail-receiver";
import { EMAIL_QUEUE, queueEmail, type EmailMessage } from "./outbox";
import type { EmailOutcome } from "./outcomes";
import { workEmail } from "./worker";

// Email goes through the real job queue to a real SMTP receiver on 127.0.0.1: a message queued in a
// transaction that commits arrives and its outcome is recorded on what asked; one whose
// transaction rolls back never leaves; a refused recipient is recorded as failed; the link the
// message carries is not readable in the queue's table.

const mail = await startMailReceiver();
afterAll(() => mail.close());
process.env.SMTP_URL = mail.url;
process.env.SMTP_FROM = "svc <no-reply@svc.test>";
process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 9).toString("base64")}`;
const { client } = await testDatabase();

const outcomes = new Map<string, EmailOutcome>();
const recorders = {
  test: async () => async (_ctx: unknown, id: string, outcome: EmailOutcome) => void outcomes.set(id, outcome),
};
const queue = await startQueue((boss, state) => workEmail(boss, state, recorders));
afterAll(() => queue.boss.stop({ graceful: false }));

const ctx = readContext(systemActor("test"));
const message = (to: string, link: string): EmailMessage => ({
  to,
  subject: "Join Acme",
  text: `Open ${link} to join.`,
  html: `<p><a href="${link}">Join</a></p>`,
});

describe("email through the queue", () => {
  it("delivers a message queued in a committed transaction and records it sent", async () => {
    const link = "https://svc.test/console/invitations/SecretToken123";
    const state = await ctx.transaction((tx) =>
      queueEmail(tx, message("ada@example.com", link), { kind: "test", id: "one" }),
    );
    expect(state).toBe("queued");
    await vi.waitFor(() => expect(outcomes.get("one")).toBe("sent"), { timeout: 20_000, interval: 100 });
    const [received] = mail.to("ada@example.com");
    expect(received!.from).toBe("no-reply@svc.test");
    expect(received!.raw).toContain("Subject: Join Acme");
    expect(received!.raw).toContain("SecretToken123");
    const jobs = await client.$queryRawUnsafe<{ data: string }[]>(
      "SELECT data::text AS data FROM pgboss.job WHERE name = $1",
      EMAIL_QUEUE,
    );
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect(job.data).not.toContain("SecretToken123");
  });

  it("sends nothing when the transaction rolls back", async () => {
    await expect(
      ctx.transaction(async (tx) => {
        await queueEmail(tx, message("rolled@example.com", "https://svc.test/x"), { kind: "test", id: "rolled" });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    // A later message arriving shows the queue has moved past where the rolled-back one would be.
    await ctx.transaction((tx) =>
      queueEmail(tx, message("after@example.com", "https://svc.test/y"), { kind: "test", id: "after" }),
    );
    await vi.waitFor(() => expect(outcomes.get("after")).toBe("sent"), { timeout: 20_000, interval: 100 });
    expect(mail.to("rolled@example.com")).toHaveLength(0);
    expect(outcomes.has("rolled")).toBe(false);
  });

  it("records a message whose recipient is refused for good as failed, without retrying", async () => {
    mail.refuse("gone@example.com");
    await ctx.transaction((tx) =>
      queueEmail(tx, message("gone@example.com", "https://svc.test/z"), { kind: "test", id: "gone" }),
    );
    await vi.waitFor(() => expect(outcomes.get("gone")).toBe("failed"), { timeout: 20_000, interval: 100 });
    expect(mail.to("gone@example.com")).toHaveLength(0);
  });
});
