import { describe, expect, it, vi } from "vitest";
import { Browserless, request, startApp, type Caller } from "@/test/app";
import { createSysAdmin, createUser, PASSWORD } from "@/test/fixtures";
import { startAppWithMail } from "@/test/mail-app";
import { linkIn } from "@/test/mail-receiver";

// Verifying an email over HTTP against the built app: the user asks for a link, a real SMTP
// receiver gets the email, the test opens the console page the link names and makes the call its
// button makes. A sys_admin marks another user's email verified; the link, used, answers as an
// unknown one; its token is in no answer and no log line. An app without SMTP says so.

const { mail, client, url, app } = await startAppWithMail();
const appUrl = app.baseUrl;

async function signedIn(username: string) {
  const browser = new Browserless(app.baseUrl);
  expect(await browser.signIn(username, PASSWORD)).toBe(true);
  return browser;
}
const call = <T = Record<string, unknown>>(as: Caller, method: string, path: string, body?: unknown) =>
  request<T>(app, as, method, path, body);

const ada = await createUser(client, `ada${process.pid}`);
await client.user.update({ where: { id: ada.id }, data: { email: `ada${process.pid}@example.test` } });
const asAda: Caller = { session: await signedIn(ada.username) };

describe("POST /api/v1/me/email/verify and the link it emails", () => {
  it("emails a link whose page confirms the email once; the token appears in no answer or log", async () => {
    const email = `ada${process.pid}@example.test`;
    const sent = await call(asAda, "POST", "/api/v1/me/email/verify");
    expect(sent).toMatchObject({ status: 202, body: { email } });
    await vi.waitFor(() => expect(mail.to(email)).toHaveLength(1), { timeout: 30_000, interval: 200 });
    const link = linkIn(mail.to(email)[0]!, "/console/verify-email/")!;
    expect(link.startsWith(`${appUrl}/console/verify-email/`)).toBe(true);
    const token = link.slice(link.lastIndexOf("/") + 1);
    expect(JSON.stringify(sent.body)).not.toContain(token);

    // The page the link opens, without a session: it shows a button and changes nothing by itself.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Verify my email");
    expect((await client.user.findUniqueOrThrow({ where: { id: ada.id } })).email_verified_at).toBeNull();

    // What the button calls, without credentials.
    const confirmed = await call({ anonymous: true }, "POST", "/api/v1/email-verifications/confirm", { token });
    expect(confirmed).toMatchObject({ status: 200, body: { email, verified: true } });
    expect((await client.user.findUniqueOrThrow({ where: { id: ada.id } })).email_verified_at).toEqual(
      expect.any(Date),
    );

    // Used: it answers as an unknown token does.
    const used = await call({ anonymous: true }, "POST", "/api/v1/email-verifications/confirm", { token });
    const unknown = await call({ anonymous: true }, "POST", "/api/v1/email-verifications/confirm", {
      token: "A".repeat(43),
    });
    expect(used.status).toBe(404);
    expect(used.body).toMatchObject({ code: "not_found", detail: (unknown.body as { detail: string }).detail });
    expect(app.logs()).not.toContain(token);
    const audit = await client.$queryRawUnsafe<{ t: string }[]>(
      `SELECT string_agg(row_to_json(a)::text, ' ') AS t FROM audit_events a`,
    );
    expect(audit[0]!.t).toContain("confirmEmailVerification");
    expect(audit[0]!.t).not.toContain(token);
  });

  it("lets only a sys_admin mark another user's email verified, audited", async () => {
    const admin = await createSysAdmin(client);
    const asAdmin: Caller = { session: await signedIn(admin.username) };
    const bob = await createUser(client, `bob${process.pid}`);
    await client.user.update({ where: { id: bob.id }, data: { email: `bob${process.pid}@example.test` } });
    const path = `/api/v1/users/${bob.id}/email/verified`;
    expect(await call(asAda, "POST", path)).toMatchObject({ status: 403 });
    const marked = await call(asAdmin, "POST", path);
    expect(marked).toMatchObject({ status: 200, body: { id: bob.id, email_verified_at: expect.any(String) } });
    expect(await call(asAdmin, "POST", `/api/v1/users/${admin.id}/email/verified`)).toMatchObject({ status: 403 });
    const events = await client.auditEvent.findMany({ where: { action: "markUserEmailVerified", outcome: "success" } });
    expect(events).toHaveLength(1);
  });
});

describe("without SMTP", () => {
  it("answers 409 saying email is not configured, sending nothing", async () => {
    const bare = await startApp(url);
    try {
      const carol = await createUser(client, `carol${process.pid}`);
      await client.user.update({ where: { id: carol.id }, data: { email: `carol${process.pid}@example.test` } });
      const browser = new Browserless(bare.baseUrl);
      expect(await browser.signIn(carol.username, PASSWORD)).toBe(true);
      const refused = await request(bare, { session: browser }, "POST", "/api/v1/me/email/verify");
      expect(refused.status).toBe(409);
      expect((refused.body as { detail: string }).detail).toMatch(/Email is not configured/);
      expect(await client.emailVerification.findUnique({ where: { user_id: carol.id } })).toBeNull();
    } finally {
      await bare.stop();
    }
  });
});
