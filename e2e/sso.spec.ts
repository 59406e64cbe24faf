import { expect, test, type Browser, type Page } from "@playwright/test";
import { e2eDatabase } from "../scripts/e2e-env.mjs";
import { MEMBER, STORAGE_STATE, signIn } from "./accounts";
import { createOrganization, uniqueName } from "./console-flows";

// Single sign-on as an organization meets it: the sys_admin connects the organization's OpenID
// Provider and its SAML IdP from its Single sign-on section, a new person signs in through each
// with "Sign in with SSO" and lands as a member, "Test connection" shows whom the IdP vouched for,
// and enforce keeps a password session out of the organization. Both IdPs are real ones, started
// by this file on loopback.

test.use({ storageState: STORAGE_STATE.admin });

// The organization's verified domain is written to the run's database, as a verification would.
process.env.DATABASE_URL = e2eDatabase().url;

const idps = (async () => {
  const { startOidcProvider } = await import("../src/test/oidc-provider");
  const { startSamlIdp } = await import("../src/test/saml-idp");
  return { oidc: await startOidcProvider(), saml: await startSamlIdp() };
})();

test.afterAll(async () => {
  const { oidc, saml } = await idps;
  await oidc.stop();
  await saml.stop();
  const { baseClient } = await import("../src/server/db/client");
  await baseClient().$disconnect();
});

/** A new organization with a verified domain of its own; answers its id, name and domain. */
async function organizationWithDomain(page: Page) {
  const name = uniqueName("SSO org");
  const orgId = await createOrganization(page, name);
  const domain = `${name.split(" ").at(-1)}.sso.e2e.test`;
  const { baseClient } = await import("../src/server/db/client");
  await baseClient().organizationDomain.create({
    data: { org_id: orgId, domain, token: "e2e", status: "verified", verified_at: new Date() },
  });
  return { orgId, name, domain };
}

async function openSsoSection(page: Page, orgId: string) {
  await page.goto(`/console/organizations/${orgId}/single-sign-on`);
  return page.getByRole("region", { name: "Single sign-on" });
}

/** The value of a field of the "Values for your identity provider" dialog of the only connection. */
async function idpValue(page: Page, domain: string, label: string): Promise<string> {
  await page.getByRole("button", { name: `Values for the identity provider of ${domain}` }).click();
  const dialog = page.getByRole("dialog", { name: "Values for your identity provider" });
  const value = await dialog.getByLabel(label, { exact: true }).inputValue();
  await dialog.getByRole("button", { name: "Done" }).click();
  return value;
}

/** A signed-out browser's "Sign in with SSO" with `email`, through `atIdp`; ends signed in, in the console. */
async function signInWithSso(browser: Browser, email: string, atIdp: (page: Page) => Promise<void>) {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.route(/fonts\.googleapis\.com|fonts\.gstatic\.com/, (route) => route.abort());
  await page.goto("/console/sign-in");
  await page.getByLabel("Work email or domain").fill(email);
  await page.getByRole("button", { name: "Continue with SSO" }).click();
  await atIdp(page);
  await expect(page).toHaveURL(/\/console\/overview$/);
  return page;
}

/** The OpenID Provider's own login and consent pages. */
const atOidcProvider = (login: string) => async (page: Page) => {
  await expect(page).toHaveURL(new RegExp(`^${(await idps).oidc.issuer}/`));
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
};

/** The SAML IdP's login page: an email, then it posts its signed answer back. */
const atSamlIdp = (email: string) => async (page: Page) => {
  await expect(page).toHaveURL(new RegExp(`^${(await idps).saml.ssoUrl}`));
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
};

test("an OpenID Connect connection: a new person signs in with SSO and lands as a member; Test connection", async ({
  page,
  browser,
}) => {
  const { oidc } = await idps;
  const { orgId, name, domain } = await organizationWithDomain(page);
  const section = await openSsoSection(page, orgId);
  await section.getByRole("button", { name: "Add connection" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add connection" });
  await dialog.getByLabel("Issuer").fill(oidc.issuer);
  await dialog.getByLabel("Client id").fill(oidc.clientId);
  await dialog.getByLabel("Client secret").fill(oidc.clientSecret);
  await dialog.getByRole("checkbox", { name: domain }).check();
  await dialog.getByRole("button", { name: "Create connection" }).click();
  await expect(page.getByRole("status").filter({ hasText: "register its redirect URI" })).toBeVisible();
  const redirectUri = await idpValue(page, domain, "Redirect URI");
  expect(redirectUri).toMatch(/\/api\/sso\/[0-9a-f-]{36}\/oidc\/callback$/);
  oidc.allowRedirectUri(redirectUri);

  oidc.addAccount({ sub: `${domain}-newcomer`, email: `newcomer@${domain}`, email_verified: true, name: "New Comer" });
  const person = await signInWithSso(browser, `newcomer@${domain}`, atOidcProvider(`${domain}-newcomer`));
  await expect(person.getByRole("list", { name: "Your organizations" })).toContainText(name);
  await person.context().close();

  // Test connection: a new tab runs the round trip and comes back to the section, signing nobody in.
  const [tab] = await Promise.all([
    page.context().waitForEvent("page"),
    page.getByRole("button", { name: `Test the connection for ${domain}` }).click(),
  ]);
  await tab.route(/fonts\.googleapis\.com|fonts\.gstatic\.com/, (route) => route.abort());
  await atOidcProvider(`${domain}-newcomer`)(tab);
  await expect(tab.getByRole("status").filter({ hasText: `signed in newcomer@${domain}` })).toBeVisible();
  await tab.close();
});

test("a SAML connection from pasted metadata; enforce keeps a password session out", async ({ page, browser }) => {
  const { saml } = await idps;
  const { orgId, name, domain } = await organizationWithDomain(page);
  const section = await openSsoSection(page, orgId);
  await section.getByRole("button", { name: "Add connection" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add connection" });
  await dialog.getByRole("radio", { name: "SAML 2.0" }).check();
  await dialog.getByLabel("IdP metadata XML").fill(await (await fetch(`${saml.baseUrl}/metadata`)).text());
  await dialog.getByRole("checkbox", { name: domain }).check();
  await dialog.getByRole("button", { name: "Create connection" }).click();
  await expect(page.getByRole("status").filter({ hasText: "give your identity provider" })).toBeVisible();
  expect(await idpValue(page, domain, "ACS URL (reply URL)")).toMatch(/\/api\/sso\/[0-9a-f-]{36}\/saml\/acs$/);

  const person = await signInWithSso(browser, `sam@${domain}`, atSamlIdp(`sam@${domain}`));
  await expect(person.getByRole("list", { name: "Your organizations" })).toContainText(name);

  // The seeded member also belongs to the organization, and signs in with a password.
  const { baseClient } = await import("../src/server/db/client");
  const db = baseClient();
  const member = await db.user.findFirstOrThrow({ where: { username: MEMBER.username } });
  const memberRole = await db.role.findUniqueOrThrow({ where: { name: "org_member" } });
  await db.userOrgMembership.create({ data: { user_id: member.id, org_id: orgId } });
  await db.userRole.create({ data: { user_id: member.id, org_id: orgId, role_id: memberRole.id } });
  const memberContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const memberPage = await memberContext.newPage();
  await signIn(memberPage, MEMBER);
  await expect(memberPage.getByRole("list", { name: "Your organizations" })).toContainText(name);
  const reaches = async (who: Page) => (await who.request.get(`/api/v1/organizations/${orgId}`)).status();
  expect(await reaches(memberPage)).toBe(200);

  // The sys_admin turns enforce on: the password session holds nothing there any more.
  await page.getByRole("button", { name: `Edit the connection for ${domain}` }).click();
  const edit = page.getByRole("dialog", { name: "Edit connection" });
  await edit.getByRole("checkbox", { name: "Enforce" }).check();
  await edit.getByRole("button", { name: "Save connection" }).click();
  await expect(section.getByRole("row", { name: new RegExp(domain.replace(/\./g, "\\.")) })).toContainText("enforced");
  expect(await reaches(memberPage)).toBe(404);
  expect(await reaches(person)).toBe(200);
  await memberContext.close();
  await person.context().close();
});

test("a refused SSO sign-in says why on the sign-in page, with an id to quote", async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/console/sign-in");
  await page.getByLabel("Work email or domain").fill("nobody@no-sso.e2e.test");
  await page.getByRole("button", { name: "Continue with SSO" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "No single sign-on is set up for that email address or domain." }),
  ).toBeVisible();
  await context.close();
});
