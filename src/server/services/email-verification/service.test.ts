import { afterAll, describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import * as linkTokens from "@/server/auth/link-tokens";
import { workEmail } from "@/server/email/worker";
import { startQueue } from "@/server/jobs/queue";
import { updateUser } from "@/server/services/users/service";
import { cli } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createUser, seedRoles } from "@/test/fixtures";
import { linkIn, startMailReceiver } from "@/test/mail-receiver";
import { sessionActor } from "@/test/trpc";
import { accountOperations } from "@/server/operations/account";
import { invoke } from "@/server/operations/invoke";
import type { DomainError } from "@/server/errors";
import { confirmEmailVerification, LINK_LIFETIME_MS, VERIFY_EMAIL_PATH } from "./service";

// Verifying an email with a link, through the real job queue to a real SMTP receiver on 127.0.0.1:
// the link arrives and works once; an old link dies when a new one is sent or the email changes; an
// expired one does not work; every unusable link answers alike; the token is in no table in clear
// and in no audit event. The HTTP round trip through the console's page is in
// rest/email-verification.http.test.ts.

const mail = await startMailReceiver();
afterAll(() => mail.close());
process.env.SMTP_URL = mail.url;
process.env.SMTP_FROM = "svc <no-reply@svc.test>";
process.env.AUTH_URL = "https://svc.test";
process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 9).toString("base64")}`;
const { client } = await testDatabase();
await seedRoles(client);
const queue = await startQueue((boss, state) => workEmail(boss, state));
afterAll(() => queue.boss.stop({ graceful: false }));

let n = 0;
async function userWithEmail() {
  const user = await createUser(client);
  const email = `verify${process.pid}x${++n}@example.test`;
  await client.user.update({ where: { id: user.id }, data: { email } });
  return { ...user, email };
}

/** Asks for a link as the user (their console session, through the operation) and waits for the email. */
async function sendLink(userId: string, email: string): Promise<string> {
  const before = mail.to(email).length;
  await send(userId);
  await vi.waitFor(() => expect(mail.to(email).length).toBeGreaterThan(before), { timeout: 20_000, interval: 100 });
  const link = linkIn(mail.to(email).at(-1)!, VERIFY_EMAIL_PATH);
  expect(link).toMatch(/^https:\/\/svc\.test\/console\/verify-email\/[0-9A-Za-z]{43}$/);
  return link!;
}
/** The REST door's call, as the user's console session (the console's own door is for sys_admins). */
const send = async (userId: string) =>
  invoke(accountOperations.sendEmailVerification, await sessionActor(userId), {
    params: {},
    query: {},
    body: () => undefined,
  });
const refusal = (userId: string) =>
  send(userId).then(
    () => expect.fail("sent"),
    (e: unknown) => e as DomainError,
  );
const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);
const confirm = (token: string) =>
  readContext(systemActor("anonymous")).transaction((ctx) => confirmEmailVerification(ctx, token));
const verifiedAt = async (userId: string) =>
  (await client.user.findUniqueOrThrow({ where: { id: userId } })).email_verified_at;
/** Makes the next request allowed now, as if a minute had passed (the limit reads stored times). */
const aMinuteLater = (userId: string) =>
  client.$executeRaw`UPDATE email_verifications SET created_at = created_at - interval '61 seconds' WHERE user_id = ${userId}::uuid`;

async function unusable(token: string) {
  const error = await confirm(token).then(
    () => undefined,
    (e: unknown) => e as { code?: string; message?: string },
  );
  expect(error).toMatchObject({ code: "not_found" });
  return error!.message;
}

describe("a link sent to the user's email", () => {
  it("arrives by email, verifies the email once, and is kept only as a hash", async () => {
    const user = await userWithEmail();
    const compare = vi.spyOn(linkTokens, "sameTokenHash");
    const link = await sendLink(user.id, user.email);
    const token = tokenOf(link);
    const row = await client.emailVerification.findUniqueOrThrow({ where: { user_id: user.id } });
    expect(row.token_hash).toBe(linkTokens.hashLinkToken(token));
    await vi.waitFor(async () =>
      expect((await client.emailVerification.findUniqueOrThrow({ where: { user_id: user.id } })).delivery).toBe("sent"),
    );
    expect(await verifiedAt(user.id)).toBeNull();

    expect(await confirm(token)).toEqual({ email: user.email, verified: true });
    expect(compare).toHaveBeenCalled();
    expect(await verifiedAt(user.id)).toBeInstanceOf(Date);
    // Used: gone.
    expect(await client.emailVerification.findUnique({ where: { user_id: user.id } })).toBeNull();
    await unusable(token);

    // The token is nowhere in the database in the clear: not the table, the queue, nor the audit trail.
    const dump = await client.$queryRawUnsafe<{ t: string }[]>(
      `SELECT string_agg(row_to_json(a)::text, ' ') AS t FROM audit_events a`,
    );
    expect(dump[0]!.t).toContain("sendEmailVerification");
    expect(dump[0]!.t).not.toContain(token);
    const jobs = await client.$queryRawUnsafe<{ t: string | null }[]>(
      `SELECT string_agg(data::text, ' ') AS t FROM pgboss.job`,
    );
    expect(jobs[0]!.t ?? "").not.toContain(token);
    // The send's answer says where and until when, never the link.
    await aMinuteLater(user.id);
  });

  it("refuses a second request within a minute (429), then sends one that kills the old link", async () => {
    const user = await userWithEmail();
    const first = tokenOf(await sendLink(user.id, user.email));
    const limited = await refusal(user.id);
    expect(limited.code).toBe("rate_limited");
    expect(limited.details.retry_after_seconds).toBeGreaterThan(0);
    await aMinuteLater(user.id);
    const second = tokenOf(await sendLink(user.id, user.email));
    expect(second).not.toBe(first);
    const oldAnswer = await unusable(first);
    await confirm(second);
    expect(await verifiedAt(user.id)).toBeInstanceOf(Date);
    // Replaced, used, unknown and malformed all answer alike.
    expect(await unusable(second)).toBe(oldAnswer);
    expect(await unusable("0".repeat(43))).toBe(oldAnswer);
    expect(await unusable("not a token")).toBe(oldAnswer);
  });

  it("does not work once expired", async () => {
    const user = await userWithEmail();
    const token = tokenOf(await sendLink(user.id, user.email));
    await client.$executeRaw`UPDATE email_verifications SET expires_at = now() - interval '1 second',
      created_at = now() - ${`${LINK_LIFETIME_MS / 1000 + 1} seconds`}::interval WHERE user_id = ${user.id}::uuid`;
    await unusable(token);
    expect(await verifiedAt(user.id)).toBeNull();
  });

  it("dies when the email changes, and a change clears a verified email", async () => {
    const user = await userWithEmail();
    const token = tokenOf(await sendLink(user.id, user.email));
    await updateUser(readContext(cli), user.id, { email: `moved${n}@example.test` });
    expect(await client.emailVerification.findUnique({ where: { user_id: user.id } })).toBeNull();
    await unusable(token);
    expect(await verifiedAt(user.id)).toBeNull();
    // Even a link row left for the old address verifies nothing for the new one.
    await client.emailVerification.create({
      data: {
        user_id: user.id,
        email: user.email,
        token_hash: linkTokens.hashLinkToken(token),
        delivery: "sent",
        expires_at: new Date(Date.now() + LINK_LIFETIME_MS),
      },
    });
    await unusable(token);
    expect(await verifiedAt(user.id)).toBeNull();
  });

  it("refuses a user without an email, or one already verified (409), sending nothing", async () => {
    const bare = await createUser(client);
    expect((await refusal(bare.id)).code).toBe("conflict");
    const done = await userWithEmail();
    await client.user.update({ where: { id: done.id }, data: { email_verified_at: new Date() } });
    const refused = await refusal(done.id);
    expect(refused).toMatchObject({ code: "conflict", message: "Your email is already verified." });
    expect(mail.to(done.email)).toHaveLength(0);
  });
});
