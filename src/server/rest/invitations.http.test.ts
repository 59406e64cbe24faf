import { describe, expect, it, vi } from "vitest";
import { Browserless, request, type Caller } from "@/test/app";
import { createOrg, createSysAdmin, createUser, PASSWORD, roleId } from "@/test/fixtures";
import { startAppWithMail } from "@/test/mail-app";
import { linkIn } from "@/test/mail-receiver";

// Invitations over HTTP against the built app, as people meet them: a sys_admin invites an address,
// a real SMTP receiver gets the email, and the test follows its link — the page it opens, then the
// call the page's button makes, signed out (a new account) or signed in (an existing one). The token
// is in the one answer that made it and the email, and nowhere else.

const { mail, client, app } = await startAppWithMail();

async function signedIn(username: string, password = PASSWORD) {
  const browser = new Browserless(app.baseUrl);
  expect(await browser.signIn(username, password)).toBe(true);
  return browser;
}
const call = <T = Record<string, unknown>>(as: Caller, method: string, path: string, body?: unknown) =>
  request<T>(app, as, method, path, body);

const admin = await createSysAdmin(client);
const asAdmin: Caller = { session: await signedIn(admin.username) };
const org = await createOrg(client, `Invitations ${process.pid}`);
const memberRole = await roleId(client, "org_member");
const invitations = `/api/v1/organizations/${org.id}/invitations`;

/** Invites `email` as org_member and answers the link the emailed message carries, once it arrives. */
async function inviteAndReceive(email: string) {
  const created = await call<{ id: string; accept_url: string }>(asAdmin, "POST", invitations, {
    email,
    role_ids: [memberRole],
  });
  expect(created.status).toBe(201);
  await vi.waitFor(() => expect(mail.to(email)).toHaveLength(1), { timeout: 30_000, interval: 200 });
  const message = mail.to(email)[0]!;
  expect(message.raw).toContain(org.name);
  expect(message.raw).toContain(admin.username);
  const link = linkIn(message, "/console/invitations/")!;
  expect(link).toBe(created.body.accept_url);
  await vi.waitFor(
    async () =>
      expect((await call(asAdmin, "GET", `${invitations}/${created.body.id}`)).body).toMatchObject({
        delivery: "sent",
      }),
    { timeout: 30_000, interval: 200 },
  );
  return { id: created.body.id, link, token: link.slice(link.lastIndexOf("/") + 1) };
}

/** The link's page as a browser without a session, or with `session`'s. */
async function openLink(link: string, session?: Browserless) {
  const page = session ? await session.fetch(new URL(link).pathname) : await fetch(link);
  expect(page.status).toBe(200);
  // React marks where text and values meet with empty comments: the text as a reader sees it.
  return (await page.text()).replaceAll("<!-- -->", "");
}

describe("an emailed invitation, followed", () => {
  it("signs a new person up from the link: a member with the roles, the email verified, signed in after", async () => {
    const email = `newcomer${process.pid}@example.test`;
    const { id, link, token } = await inviteAndReceive(email);

    const page = await openLink(link);
    expect(page).toContain(`Join ${org.name}`);
    expect(page).toContain("Create account and join");

    const username = `newcomer${process.pid}`;
    const password = "a long enough password";
    const joined = await call({ anonymous: true }, "POST", "/api/v1/invitations/sign-up", {
      token,
      username,
      password,
    });
    expect(joined).toMatchObject({
      status: 200,
      body: { org_id: org.id, organization_name: org.name, username, roles: [{ name: "org_member" }] },
    });

    const user = await client.user.findFirstOrThrow({ where: { username } });
    expect(user.email).toBe(email);
    expect(user.email_verified_at).toEqual(expect.any(Date));
    expect(await client.userOrgMembership.count({ where: { user_id: user.id, org_id: org.id } })).toBe(1);
    expect(await call(asAdmin, "GET", `${invitations}/${id}`)).toMatchObject({
      body: { status: "accepted", accepted_by: user.id },
    });

    // The new account signs in and sees the organization it joined (the console's landing page).
    const session = await signedIn(username, password);
    const landing = await session.fetch("/console/overview");
    expect(landing.status).toBe(200);
    const html = await landing.text();
    expect(html).toContain("Your organizations");
    expect(html).toContain(org.name);

    // Used, the link's page and both doors answer as for a link that never existed.
    expect(await openLink(link)).toContain("This invitation cannot be used");
    const again = await call({ anonymous: true }, "POST", "/api/v1/invitations/sign-up", {
      token,
      username: `${username}2`,
      password,
    });
    const unknown = await call({ anonymous: true }, "POST", "/api/v1/invitations/sign-up", {
      token: "B".repeat(43),
      username: `${username}3`,
      password,
    });
    expect(again.status).toBe(404);
    const { code, detail } = unknown.body as { code: string; detail: string };
    expect(again.body).toMatchObject({ code, detail });
  });

  it("lets the verified owner of the address accept from the link while signed in", async () => {
    const email = `member${process.pid}@example.test`;
    const bob = await createUser(client, `bob${process.pid}`);
    await client.user.update({ where: { id: bob.id }, data: { email, email_verified_at: new Date() } });
    const { link, token } = await inviteAndReceive(email);
    const asBob = await signedIn(bob.username);

    const page = await openLink(link, asBob);
    expect(page).toContain(`You are signed in as ${bob.username}`);
    expect(page).toContain("Accept invitation");

    // Someone else signed in is told it is not theirs, and nothing changes.
    const carol = await createUser(client, `carol${process.pid}`);
    const asCarol = await signedIn(carol.username);
    const refused = await call({ session: asCarol }, "POST", "/api/v1/invitations/accept", { token });
    expect(refused.status).toBe(403);
    expect(await client.userOrgMembership.count({ where: { user_id: carol.id } })).toBe(0);

    const accepted = await call({ session: asBob }, "POST", "/api/v1/invitations/accept", { token });
    expect(accepted).toMatchObject({ status: 200, body: { org_id: org.id, user_id: bob.id } });
    expect(await client.userOrgMembership.count({ where: { user_id: bob.id, org_id: org.id } })).toBe(1);
  });

  it("keeps every token out of the logs, the audit trail, lists and webhook-ready events", async () => {
    const { token } = await inviteAndReceive(`quiet${process.pid}@example.test`);
    const listed = await call(asAdmin, "GET", invitations);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(app.logs()).not.toContain(token);
    const [audit] = await client.$queryRawUnsafe<{ t: string }[]>(
      `SELECT string_agg(row_to_json(a)::text, ' ') AS t FROM audit_events a`,
    );
    expect(audit!.t).toContain("createInvitation");
    expect(audit!.t).not.toContain(token);
    const [outbox] = await client.$queryRawUnsafe<{ t: string | null }[]>(
      `SELECT string_agg(row_to_json(e)::text, ' ') AS t FROM webhook_messages e`,
    );
    expect(outbox!.t ?? "").not.toContain(token);
  });
});
