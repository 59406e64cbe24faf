import { expect, test, type Page } from "@playwright/test";
import { e2eDatabase, e2eMail } from "../scripts/e2e-env.mjs";
import { STORAGE_STATE } from "./accounts";
import { createOrganization, uniqueName } from "./console-flows";

// Invitations as people meet them: a sys_admin invites an address from the organization's
// Invitations section, the invitee opens the emailed link (from the run's SMTP receiver) signed out,
// makes an account and, signed in, finds the organization among theirs. A link past its expiry
// opens the page that says it cannot be used; a revoked one too.

test.use({ storageState: STORAGE_STATE.admin });

// The expiry is moved into the past in the run's database, as time would.
process.env.DATABASE_URL = e2eDatabase().url;

const mail = e2eMail(Number(process.env.E2E_PORT ?? 3100));

test.afterAll(async () => {
  const { baseClient } = await import("../src/server/db/client");
  await baseClient().$disconnect();
});

/** The invitation link in the newest email to `email`, once one has arrived. */
async function emailedLink(email: string): Promise<string> {
  let link: string | undefined;
  await expect(async () => {
    const messages = (await (await fetch(`${mail.inbox}/?to=${encodeURIComponent(email)}`)).json()) as {
      raw: string;
    }[];
    const text = (messages.at(-1)?.raw ?? "").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    link = text.match(/https?:\/\/[^\s"<>]*\/console\/invitations\/[A-Za-z0-9]+/)?.[0];
    expect(link).toBeDefined();
  }).toPass({ timeout: 30_000 });
  return link!;
}

/** Invites `email` as org_member from the Invitations section; answers the link the dialog shows. */
async function invite(page: Page, orgName: string, email: string): Promise<string> {
  const section = page.getByRole("region", { name: "Invitations" });
  await section.getByRole("button", { name: "Invite people" }).first().click();
  const form = page.getByRole("dialog", { name: `Invite someone to ${orgName}` });
  await form.getByLabel("Email").fill(email);
  await form.getByRole("checkbox", { name: /^org_member/ }).check();
  await form.getByRole("button", { name: "Send invitation" }).click();
  const shown = page.getByRole("alertdialog", { name: `Invitation link for ${email}` });
  const link = await shown.getByLabel("Invitation link").inputValue();
  await expect(shown).toContainText(`On its way to ${email}`);
  await shown.getByRole("button", { name: "I have copied the link" }).click();
  return link;
}

const rowOf = (page: Page, email: string) => page.getByRole("row", { name: new RegExp(email.replace(/\./g, "\\.")) });

test("invite by email; the invitee signs up from the link signed out and lands in the organization", async ({
  page,
  browser,
}) => {
  const orgName = uniqueName("Invited org");
  const orgId = await createOrganization(page, orgName);
  await page
    .getByRole("navigation", { name: "Organization sections" })
    .getByRole("link", { name: "Invitations", exact: true })
    .click();
  await expect(page).toHaveURL(`/console/organizations/${orgId}/invitations`);

  const suffix = Date.now().toString(36);
  const email = `newcomer-${suffix}@example.test`;
  const shownLink = await invite(page, orgName, email);
  await expect(rowOf(page, email)).toContainText("pending");
  const link = await emailedLink(email);
  expect(link).toBe(shownLink);

  // The invitee, signed out in a browser of their own.
  const invitee = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const theirs = await invitee.newPage();
  await theirs.goto(link);
  await expect(theirs.getByRole("heading", { level: 1, name: `Join ${orgName}` })).toBeVisible();
  await expect(theirs.getByText(`Your email will be ${email}.`)).toBeVisible();
  const username = `newcomer-${suffix}`;
  const password = "a long enough password";
  await theirs.getByLabel("Username").fill(username);
  await theirs.getByLabel("Password").fill(password);
  await theirs.getByRole("button", { name: "Create account and join" }).click();
  const joined = theirs.getByRole("status");
  await expect(joined).toContainText(`You joined ${orgName} as ${username}.`);

  await joined.getByRole("link", { name: "Sign in" }).click();
  await theirs.getByLabel("Username or email").fill(username);
  await theirs.getByLabel("Password").fill(password);
  await theirs.getByRole("button", { name: "Sign in", exact: true }).click();
  const organizations = theirs.getByRole("list", { name: "Your organizations" });
  await expect(organizations).toContainText(orgName);
  await expect(organizations).toContainText("org_member");

  // Used, the link opens the page that says it cannot be used.
  await theirs.goto(link);
  await expect(theirs.getByRole("heading", { level: 1, name: "This invitation cannot be used" })).toBeVisible();
  await invitee.close();

  // The inviter sees it accepted, and the newcomer among the members.
  await page.reload();
  await expect(rowOf(page, email)).toContainText("accepted");
  await page
    .getByRole("navigation", { name: "Organization sections" })
    .getByRole("link", { name: "Members", exact: true })
    .click();
  await expect(page.getByRole("row", { name: new RegExp(username) })).toBeVisible();
});

test("an expired link and a revoked one open the page that says they cannot be used", async ({ page }) => {
  const orgName = uniqueName("Expiring org");
  const orgId = await createOrganization(page, orgName);
  await page.goto(`/console/organizations/${orgId}/invitations`);
  const suffix = Date.now().toString(36);
  const late = `late-${suffix}@example.test`;
  const lateLink = await invite(page, orgName, late);

  const { baseClient } = await import("../src/server/db/client");
  await baseClient().invitation.updateMany({
    where: { org_id: orgId, email: late },
    data: { expires_at: new Date(Date.now() - 60_000) },
  });
  await page.goto(lateLink);
  await expect(page.getByRole("heading", { level: 1, name: "This invitation cannot be used" })).toBeVisible();
  await expect(page.getByText("It may have expired")).toBeVisible();
  await page.goto(`/console/organizations/${orgId}/invitations`);
  await expect(rowOf(page, late)).toContainText("expired");
  await expect(rowOf(page, late).getByRole("button")).toHaveCount(0);

  // Revoked from the list: its link dies at once. "Copy link" first makes a new one.
  const gone = `gone-${suffix}@example.test`;
  const firstLink = await invite(page, orgName, gone);
  await rowOf(page, gone)
    .getByRole("button", { name: `Copy a new link for ${gone}` })
    .click();
  const shown = page.getByRole("alertdialog", { name: `Invitation link for ${gone}` });
  const secondLink = await shown.getByLabel("Invitation link").inputValue();
  expect(secondLink).not.toBe(firstLink);
  await shown.getByRole("button", { name: "I have copied the link" }).click();
  await page.goto(firstLink);
  await expect(page.getByRole("heading", { level: 1, name: "This invitation cannot be used" })).toBeVisible();

  await page.goto(`/console/organizations/${orgId}/invitations`);
  await rowOf(page, gone)
    .getByRole("button", { name: `Revoke the invitation of ${gone}` })
    .click();
  await page
    .getByRole("alertdialog", { name: `Revoke the invitation of ${gone}?` })
    .getByRole("button", { name: "Revoke invitation" })
    .click();
  await expect(page.getByText(`The invitation of ${gone} is revoked.`)).toBeVisible();
  await expect(rowOf(page, gone)).toContainText("revoked");
  await page.goto(secondLink);
  await expect(page.getByRole("heading", { level: 1, name: "This invitation cannot be used" })).toBeVisible();
});
