import { expect, test, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { e2eDatabase, e2eDns, e2eOidc, e2eSaml } from "../scripts/e2e-env.mjs";
import { createUserInput } from "../src/lib/schemas/users";
import { systemActor } from "../src/server/auth/actor";
import { baseClient } from "../src/server/db/client";
import { readContext } from "../src/server/db/context";
import { addMember } from "../src/server/services/memberships/service";
import { grantRole } from "../src/server/services/roles/grants";
import { listRoles } from "../src/server/services/roles/service";
import { createUser } from "../src/server/services/users/service";
import { signIn, STORAGE_STATE, type Account } from "./accounts";
import { createOrganization, uniqueName } from "./console-flows";
import { consoleUrl } from "./pages";

// Single sign-on as an organization meets it, against the run's own identity providers: the
// sys_admin verifies a domain of the organization (its TXT record published on the run's DNS
// server), connects the organization's OpenID Provider or SAML IdP from its Single sign-on section
// and enters the values it shows at the IdP; a new person signs in with "Sign in with SSO" and
// lands as a member; "Test connection" runs the round trip in a new tab and comes back to the
// section; enforce keeps a password session out of the organization while the SSO one stays.

test.use({ storageState: STORAGE_STATE.admin });

const appPort = Number(process.env.E2E_PORT ?? 3100);
const oidc = e2eOidc(appPort);
const saml = e2eSaml(appPort);
const dns = e2eDns(appPort);

// The password member of the enforce flow is made through the services, on the run's database.
process.env.DATABASE_URL = e2eDatabase().url;

test.afterAll(async () => {
  await baseClient().$disconnect();
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Registers a redirect URI or an account at the run's OpenID Provider (scripts/e2e-oidc-provider.ts). */
async function registerAtOidcProvider(path: "/redirect-uris" | "/accounts", body: object) {
  const response = await fetch(`${oidc.control}${path}`, { method: "POST", body: JSON.stringify(body) });
  expect(response.status, `POST ${path}`).toBe(204);
}

/**
 * A new organization with a domain verified as its admin would: added in its settings, the TXT
 * record the dialog shows published on the run's DNS server, then Verify.
 */
async function organizationWithVerifiedDomain(page: Page, label: string) {
  const name = uniqueName(label);
  const orgId = await createOrganization(page, name);
  const domain = `${name.split(" ").at(-1)}.${label.toLowerCase().replaceAll(" ", "-")}.e2e.test`;
  await page.goto(`/console/organizations/${orgId}/settings`);
  const domains = page.getByRole("region", { name: "Domains" });
  await domains.getByRole("button", { name: "Add domain" }).first().click();
  const form = page.getByRole("dialog", { name: "Add domain" });
  await form.getByLabel("Domain").fill(domain);
  await form.getByRole("button", { name: "Add domain" }).click();
  const record = page.getByRole("dialog", { name: `TXT record for ${domain}` });
  const txtName = await record.getByLabel("Name").inputValue();
  const txtValue = await record.getByLabel("Value").inputValue();
  const published = await fetch(`${dns.control}/txt/${encodeURIComponent(txtName)}`, {
    method: "PUT",
    body: JSON.stringify([txtValue]),
  });
  expect(published.status).toBe(204);
  await record.getByRole("button", { name: "Done" }).click();
  await domains.getByRole("button", { name: `Verify ${domain}` }).click();
  await expect(page.getByText(`${domain} is verified.`)).toBeVisible();
  return { orgId, name, domain };
}

/** The organization's Single sign-on section, reached from its sections. */
async function openSsoSection(page: Page, orgId: string) {
  await page.goto(`/console/organizations/${orgId}`);
  await page
    .getByRole("navigation", { name: "Organization sections" })
    .getByRole("link", { name: "Single sign-on", exact: true })
    .click();
  await expect(page).toHaveURL(`/console/organizations/${orgId}/single-sign-on`);
  return page.getByRole("region", { name: "Single sign-on" });
}

/** How a connection of one protocol is filled in, and the labels of the values it then shows for the IdP. */
interface ConnectionForm {
  fill: (dialog: Locator) => Promise<void>;
  shows: string[];
}

const samlFromMetadata: ConnectionForm = {
  fill: async (dialog) => {
    await dialog.getByRole("radio", { name: "SAML 2.0" }).check();
    await dialog.getByLabel("IdP metadata XML").fill(await (await fetch(`${saml.baseUrl}/metadata`)).text());
  },
  shows: ["Entity id (audience)", "ACS URL (reply URL)", "Metadata URL"],
};

/** Adds a connection covering `domain`; answers the values the dialog that follows shows for the IdP, by label. */
async function addConnection(page: Page, orgId: string, domain: string, { fill, shows }: ConnectionForm) {
  const section = await openSsoSection(page, orgId);
  await section.getByRole("button", { name: "Add connection" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add connection" });
  await fill(dialog);
  await dialog.getByRole("checkbox", { name: domain }).check();
  await dialog.getByRole("button", { name: "Create connection" }).click();
  const values = page.getByRole("dialog", { name: "Values for your identity provider" });
  await expect(values).toBeVisible();
  const shown: Record<string, string> = {};
  for (const label of shows) shown[label] = await values.getByLabel(label, { exact: true }).inputValue();
  await values.getByRole("button", { name: "Done" }).click();
  await expect(section.getByRole("row", { name: new RegExp(escaped(domain)) })).toContainText("enabled");
  return shown;
}

/** The run's OpenID Provider pulls a web font from the internet on its pages: not here. */
async function offline(context: BrowserContext) {
  await context.route(/fonts\.googleapis\.com|fonts\.gstatic\.com/, (route) => route.abort());
}

/** The OpenID Provider's own login and consent pages, as the account `login` names. */
const atOidcProvider = (login: string) => async (page: Page) => {
  await expect(page).toHaveURL(new RegExp(`^${escaped(oidc.issuer)}/`));
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
};

/** The SAML IdP's login page: an email, then it posts its signed answer back by itself. */
const atSamlIdp = (email: string) => async (page: Page) => {
  await expect(page).toHaveURL(new RegExp(`^${escaped(saml.baseUrl)}/sso`));
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
};

/** A signed-out browser's "Sign in with SSO" with `email`, through `atIdp`; answers its page, signed in. */
async function signInWithSso(browser: Browser, email: string, atIdp: (page: Page) => Promise<void>) {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  await offline(context);
  const page = await context.newPage();
  await page.goto("/console/sign-in");
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await page.getByLabel("Work email or domain").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await atIdp(page);
  await expect(page).toHaveURL(/\/console\/overview$/);
  return page;
}

/** "Test connection" in a new tab, through `atIdp`; answers the tab, back on the section. */
async function testConnection(page: Page, domain: string, atIdp: (page: Page) => Promise<void>) {
  const link = page.getByRole("link", { name: `Test the connection for ${domain}` });
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", /noopener/);
  await offline(page.context());
  const [tab] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
  await atIdp(tab);
  await expect(tab).toHaveURL(/\/single-sign-on\?/);
  return tab;
}

/** The page's own alerts (Next.js's route announcer is one too, outside the main content). */
const alertOf = (page: Page) => page.getByRole("main").getByRole("alert");
const organizationsOf = (page: Page) => page.getByRole("list", { name: "Your organizations" });
const reachesOrganization = async (page: Page, orgId: string) =>
  (await page.request.get(`/api/v1/organizations/${orgId}`)).status();

test("an OpenID Connect connection: a new person signs in with SSO and joins; Test connection", async ({
  page,
  browser,
}) => {
  const { orgId, name, domain } = await organizationWithVerifiedDomain(page, "OIDC SSO");
  const shown = await addConnection(page, orgId, domain, {
    fill: async (dialog) => {
      await expect(dialog.getByLabel("Scopes")).toHaveValue("openid email profile");
      await expect(dialog.getByLabel("Client secret")).toHaveAttribute("type", "password");
      await dialog.getByLabel("Issuer").fill(oidc.issuer);
      await dialog.getByLabel("Client id").fill(oidc.clientId);
      await dialog.getByLabel("Client secret").fill(oidc.clientSecret);
    },
    shows: ["Redirect URI"],
  });
  const redirectUri = shown["Redirect URI"]!;
  expect(redirectUri).toMatch(/^http:\/\/localhost:\d+\/api\/sso\/[0-9a-f-]{36}\/oidc\/callback$/);
  await registerAtOidcProvider("/redirect-uris", { uri: redirectUri });
  const login = `newcomer-${domain}`;
  await registerAtOidcProvider("/accounts", { sub: login, email: `newcomer@${domain}`, name: "New Comer" });

  const person = await signInWithSso(browser, `newcomer@${domain}`, atOidcProvider(login));
  await expect(organizationsOf(person)).toContainText(`${name} — org_member`);
  await person.context().close();

  // Turned down at the IdP, the test says why, with the id to quote.
  const cancelled = await testConnection(page, domain, (tab) => tab.getByRole("link", { name: "[ Cancel ]" }).click());
  await expect(alertOf(cancelled)).toHaveText(
    /^The test failed: Your identity provider did not sign you in\. Error id: [0-9a-f-]{36}$/,
  );
  await cancelled.close();

  // The round trip signs nobody in: the tab comes back to the section, still the sys_admin's.
  const tested = await testConnection(page, domain, atOidcProvider(login));
  await expect(
    tested
      .getByRole("region", { name: "Single sign-on" })
      .getByText(`The identity provider signed in newcomer@${domain} (subject ${login}). Nobody was signed in here.`),
  ).toBeVisible();
  await tested.close();
});

test("a SAML connection from pasted metadata: a new person signs in with SSO and joins; Test connection", async ({
  page,
  browser,
}) => {
  const { orgId, name, domain } = await organizationWithVerifiedDomain(page, "SAML SSO");
  const shown = await addConnection(page, orgId, domain, samlFromMetadata);
  const acsUrl = shown["ACS URL (reply URL)"]!;
  expect(acsUrl).toMatch(/^http:\/\/localhost:\d+\/api\/sso\/[0-9a-f-]{36}\/saml\/acs$/);
  expect(shown["Entity id (audience)"]).toBeTruthy();
  // The metadata URL given to the IdP serves this connection's entity id and ACS.
  const spMetadata = await (await page.request.get(shown["Metadata URL"]!)).text();
  expect(spMetadata).toContain(acsUrl);
  expect(spMetadata).toContain(shown["Entity id (audience)"]);

  const email = `sam@${domain}`;
  const person = await signInWithSso(browser, email, atSamlIdp(email));
  await expect(organizationsOf(person)).toContainText(`${name} — org_member`);
  await person.context().close();

  const tested = await testConnection(page, domain, atSamlIdp(email));
  await expect(
    tested
      .getByRole("region", { name: "Single sign-on" })
      .getByText(`The identity provider signed in ${email} (subject ${email}). Nobody was signed in here.`),
  ).toBeVisible();
  await tested.close();

  // An address the connection does not cover passes a test, which says a sign-in would not.
  const elsewhere = await testConnection(page, domain, atSamlIdp("sam@elsewhere.e2e.test"));
  await expect(
    elsewhere
      .getByRole("region", { name: "Single sign-on" })
      .getByText("A sign-in would be refused: that address is at none of the connection's domains."),
  ).toBeVisible();
  await elsewhere.close();
});

test("enforce: a password session no longer reaches the organization, the SSO one does", async ({ page, browser }) => {
  const { orgId, name, domain } = await organizationWithVerifiedDomain(page, "Enforced SSO");
  await addConnection(page, orgId, domain, samlFromMetadata);
  const ssoPerson = await signInWithSso(browser, `ada@${domain}`, atSamlIdp(`ada@${domain}`));

  // A member of the organization who signs in with a password.
  const account: Account = { username: `pw-${domain.split(".")[0]}`, password: "a long enough password" };
  const system = readContext(systemActor("e2e"));
  const user = await createUser(system, createUserInput.parse({ ...account, email: `pw@${domain}` }));
  await addMember(system, orgId, { user_id: user.id });
  const roles = await listRoles(system, { q: "org_member", scope: "org", limit: 10 });
  await grantRole(system, user.id, { role_id: roles.data.find((r) => r.name === "org_member")!.id, org_id: orgId });
  const memberContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const member = await memberContext.newPage();
  await signIn(member, account);
  await expect(organizationsOf(member)).toContainText(name);
  expect(await reachesOrganization(member, orgId)).toBe(200);

  await page.getByRole("button", { name: `Edit the connection for ${domain}` }).click();
  const edit = page.getByRole("dialog", { name: "Edit connection" });
  await edit.getByRole("checkbox", { name: "Enforce", exact: true }).check();
  await expect(edit.getByText("loses access to the organization at once")).toBeVisible();
  await edit.getByRole("button", { name: "Save connection" }).click();
  await expect(page.getByText("Connection saved.")).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(escaped(domain)) })).toContainText("enforced");

  // The password session answers as for someone who is not a member; the SSO session is unchanged.
  await member.reload();
  await expect(member.getByText("You do not belong to any organization yet.")).toBeVisible();
  expect(await reachesOrganization(member, orgId)).toBe(404);
  await ssoPerson.reload();
  await expect(organizationsOf(ssoPerson)).toContainText(name);
  expect(await reachesOrganization(ssoPerson, orgId)).toBe(200);
  await memberContext.close();
  await ssoPerson.context().close();
});

test("a refused SSO sign-in says why, with the id to quote; an unknown refusal says nothing", async ({
  page,
  browser,
}) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const signedOut = await context.newPage();
  await signedOut.goto("/console/sign-in");
  const ssoButton = signedOut.getByRole("button", { name: "Sign in with SSO" });
  await expect(ssoButton).toHaveAttribute("aria-expanded", "false");
  await expect(signedOut.getByLabel("Work email or domain")).toBeHidden();
  await ssoButton.click();
  await expect(signedOut.getByLabel("Work email or domain")).toBeFocused();
  await signedOut.getByLabel("Work email or domain").fill("nobody@no-sso.e2e.test");
  await signedOut.getByRole("button", { name: "Continue" }).click();
  await expect(alertOf(signedOut)).toHaveText("No single sign-on is set up for that email address or domain.");
  // Back to try again: the SSO field is already shown.
  await expect(signedOut.getByLabel("Work email or domain")).toBeVisible();

  await signedOut.goto("/console/sign-in?sso_error=email_not_covered&error_id=e2e-4f2a");
  await expect(alertOf(signedOut)).toHaveText(
    "Your identity provider vouched for an email address this connection does not cover. Error id: e2e-4f2a",
  );
  await signedOut.goto("/console/sign-in?sso_error=no_such_code&error_id=e2e-4f2a");
  await expect(signedOut.getByRole("heading", { name: "Sign in to the console" })).toBeVisible();
  await expect(alertOf(signedOut)).toHaveCount(0);
  await context.close();

  // An unknown code after a test round trip says nothing either.
  await page.goto(`${await consoleUrl("/console/organizations/[orgId]/single-sign-on")}?sso_error=no_such_code`);
  await expect(page.getByRole("region", { name: "Single sign-on" })).toBeVisible();
  await expect(alertOf(page)).toHaveCount(0);
});
