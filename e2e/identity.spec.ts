import { expect, test, type Locator, type Page } from "@playwright/test";
import { e2eDatabase, e2eOidc } from "../scripts/e2e-env.mjs";
import { createOrganizationInput } from "../src/lib/schemas/organizations";
import { createUserInput } from "../src/lib/schemas/users";
import { systemActor } from "../src/server/auth/actor";
import { baseClient } from "../src/server/db/client";
import { dataLayer } from "../src/server/db/data-layer";
import { verifyClientSecret } from "../src/server/services/oauth-clients/service";
import { createOrganization } from "../src/server/services/organizations/service";
import { grantRole } from "../src/server/services/roles/grants";
import { listRoles } from "../src/server/services/roles/service";
import { createUser, listUsers } from "../src/server/services/users/service";
import { signIn, STORAGE_STATE } from "./accounts";
import { readContext } from "../src/server/db/context";

// The identity screens, signed in as the sys_admin: users (create, add to an organization, grant
// an org role), an organization's members, roles, OAuth clients (register, secret shown once,
// rotate, deactivate, delete); and the sign-in through the run's local OpenID provider.
//
// The data the flows start from is seeded through the services, on the run's database.

const oidc = e2eOidc(Number(process.env.E2E_PORT ?? 3100));
const stamp = Date.now().toString(36);
const system = systemActor("e2e");

let org: { id: string; name: string };
let oidcUser: { id: string; username: string };
/** The password the OpenID test account's user signs in with before linking the account. */
const OIDC_USER_PASSWORD = "oidc-admin-password-1";

test.beforeAll(async () => {
  process.env.DATABASE_URL = e2eDatabase().url;
  org = await createOrganization(
    readContext(system),
    createOrganizationInput.parse({ name: `E2E identity org ${stamp}` }),
  );
  // The user whose email the local provider's test account has verified: a sys_admin, so the email
  // alone does not link the account; the user links it from their own profile.
  const existing = (await listUsers(readContext(system), { q: oidc.account.email, limit: 1 })).data[0];
  oidcUser =
    existing ??
    (await createUser(
      readContext(system),
      createUserInput.parse({
        username: oidc.account.sub,
        email: oidc.account.email,
        display_name: oidc.account.name,
        password: OIDC_USER_PASSWORD,
      }),
    ));
  if (!existing) {
    const sysAdmin = (await listRoles(readContext(system), { q: "sys_admin", scope: "system", limit: 10 })).data.find(
      (r) => r.name === "sys_admin",
    );
    if (!sysAdmin) throw new Error("The seed's sys_admin role is missing.");
    await grantRole(readContext(system), oidcUser.id, { role_id: sysAdmin.id, org_id: null });
  }
});

test.afterAll(async () => {
  await baseClient().$disconnect();
});

/** The local provider's login page pulls a web font from the internet: not here. */
async function offline(page: Page) {
  await page.route(/fonts\.googleapis\.com|fonts\.gstatic\.com/, (route) => route.abort());
}

/** The local provider's own login and consent pages, as the given test account. */
async function atProvider(page: Page, login: string) {
  await expect(page).toHaveURL(new RegExp(`^${oidc.issuer}/`));
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

async function signInWithProvider(page: Page, login: string) {
  await offline(page);
  await page.goto("/console/sign-in");
  await page.getByRole("button", { name: `Sign in with ${oidc.name}` }).click();
  await atProvider(page, login);
}

const status = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text });

/** Picks the option of a select whose text starts with `name`. */
async function pickOption(select: Locator, name: string) {
  const value = await select.locator("option", { hasText: new RegExp(`^${name}( —|$)`) }).getAttribute("value");
  await select.selectOption(value ?? "");
}

test.describe("as the sys_admin", () => {
  test.use({ storageState: STORAGE_STATE.admin });

  test("create a user, add them to an organization, grant an org role, and manage it on the members page", async ({
    page,
  }) => {
    const username = `e2e-user-${stamp}`;
    await page.goto("/console/users");
    await page.getByRole("button", { name: "Create user" }).click();
    const create = page.getByRole("dialog", { name: "Create user" });
    await create.getByLabel("Username").fill(username);
    await create.getByLabel("Email").fill(`${username}@e2e.test`);
    await create.getByLabel("Display name").fill("E2E User");
    await create.getByLabel("Password", { exact: true }).fill("short");
    await create.getByRole("button", { name: "Create user" }).click();
    await expect(create.getByText("Password must be at least 12 characters.")).toBeVisible();
    await expect(create.getByLabel("Password", { exact: true })).toBeFocused();
    await create.getByLabel("Password", { exact: true }).fill("e2e-user-password-1");
    await create.getByRole("button", { name: "Create user" }).click();

    await expect(page).toHaveURL(/\/console\/users\/[0-9a-f-]{36}\?created=1$/);
    const userId = /users\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? "";
    await expect(page.getByRole("heading", { level: 1, name: username })).toBeVisible();
    await expect(status(page, "User created.")).toBeVisible();
    await expect(page.getByText(`${username} belongs to no organization.`)).toBeVisible();

    await page.getByRole("button", { name: "Add to organization" }).first().click();
    const add = page.getByRole("dialog", { name: `Add ${username} to an organization` });
    await add.getByLabel("Organization").fill(org.name);
    await add.getByRole("button", { name: "Find" }).click();
    await add.getByRole("button", { name: `Pick ${org.name}` }).click();
    await add.getByRole("button", { name: "Add to organization" }).click();
    await expect(status(page, `${username} added to ${org.name}.`)).toBeVisible();
    await expect(
      page
        .getByRole("table", { name: `Organizations of ${username}` })
        .getByRole("row", { name: new RegExp(org.name) }),
    ).toContainText("None");

    await page.getByRole("button", { name: "Grant role" }).first().click();
    const grant = page.getByRole("dialog", { name: `Grant a role to ${username}` });
    await expect(grant.getByRole("radio", { name: "Organization role, in one organization" })).toBeChecked();
    await pickOption(grant.getByLabel("Role", { exact: true }), "org_admin");
    await grant.getByLabel("Organization", { exact: true }).selectOption({ label: org.name });
    await grant.getByRole("button", { name: "Grant role" }).click();
    await expect(status(page, `org_admin granted to ${username} in ${org.name}.`)).toBeVisible();
    const grants = page.getByRole("table", { name: `Role grants of ${username}` });
    await expect(grants.getByRole("row", { name: /org_admin/ })).toContainText(org.name);

    // Effective permissions: in the organization, with the role each one comes from.
    await page.locator("summary", { hasText: `In ${org.name}` }).click();
    const inOrg = page.getByRole("table", { name: `Permissions ${username} holds in ${org.name}` });
    const membersWrite = inOrg.getByRole("row", { name: /svc:org:members:write/ });
    await expect(membersWrite).toContainText("Dangerous");
    await expect(membersWrite).toContainText(`org_admin (in ${org.name})`);
    await expect(page.getByRole("table", { name: `Permissions ${username} holds globally` })).toHaveCount(0);

    // The organization's Members tab: the member with their role; grant another, revoke the first.
    await page.goto(`/console/organizations/${org.id}/members`);
    await expect(
      page.getByRole("navigation", { name: "Organization sections" }).getByRole("link", { name: "Members" }),
    ).toHaveAttribute("aria-current", "page");
    const row = page
      .getByRole("table", { name: `Members of ${org.name}` })
      .getByRole("row", { name: new RegExp(username) });
    await expect(row).toContainText("org_admin");
    await row.getByRole("button", { name: `Grant role to ${username}` }).click();
    const grantHere = page.getByRole("dialog", { name: `Grant an org role to ${username}` });
    await pickOption(grantHere.getByLabel("Org role", { exact: true }), "org_member");
    await grantHere.getByRole("button", { name: "Grant role" }).click();
    await expect(status(page, `org_member granted to ${username} in ${org.name}.`)).toBeVisible();
    await row.getByRole("button", { name: `Revoke org_admin from ${username}` }).click();
    await page
      .getByRole("alertdialog", { name: `Revoke org_admin from ${username}?` })
      .getByRole("button", { name: "Revoke role" })
      .click();
    await expect(status(page, `org_admin revoked from ${username}.`)).toBeVisible();
    await expect(row).toContainText("org_member");
    await expect(row).not.toContainText("org_admin");

    await row.getByRole("link", { name: username }).click();
    await expect(page).toHaveURL(new RegExp(`/console/users/${userId}$`));
    await expect(grants.getByRole("row", { name: /org_member/ })).toContainText(org.name);
  });

  test("create an org role from catalog permissions; built-in roles are read-only", async ({ page }) => {
    const name = `e2e-auditor-${stamp}`;
    await page.goto("/console/roles");
    await page.getByRole("link", { name: "Create role" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Create role" })).toBeVisible();
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Description").fill("Reads members");
    await expect(page.getByRole("radio", { name: /^Organization/ })).toBeChecked();
    // An org role is offered org permissions only; dangerous ones are marked.
    await expect(page.getByRole("checkbox", { name: "svc:system:users:read", exact: true })).toHaveCount(0);
    await page.getByRole("checkbox", { name: "svc:org:read", exact: true }).check();
    await page.getByRole("checkbox", { name: "svc:org:members:read", exact: true }).check();
    await expect(
      page
        .getByRole("listitem")
        .filter({ has: page.getByRole("checkbox", { name: "svc:org:members:write", exact: true }) }),
    ).toContainText("Dangerous");
    await page.getByRole("button", { name: "Create role" }).click();

    await expect(page).toHaveURL(/\/console\/roles\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
    await expect(page.getByRole("checkbox", { name: "svc:org:members:read", exact: true })).toBeChecked();

    await page.goto("/console/roles");
    await page.getByRole("link", { name: "org_admin", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "org_admin" })).toBeVisible();
    await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("readonly", "");
    await expect(page.getByRole("checkbox", { name: "svc:org:members:write", exact: true })).toBeDisabled();
    await expect(page.getByRole("checkbox", { name: "svc:org:members:write", exact: true })).toBeChecked();
    await expect(page.getByRole("button", { name: "Delete role" })).toHaveCount(0);
  });

  test("register a confidential OAuth client, read its secret once, rotate it, deactivate and delete the client", async ({
    page,
  }) => {
    const name = `E2E portal ${stamp}`;
    await page.goto("/console/oauth-clients");
    await page.getByRole("button", { name: "Register client" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Register OAuth client" });
    await dialog.getByLabel("Name", { exact: true }).fill(name);
    await expect(dialog.getByRole("radio", { name: /^Confidential/ })).toBeChecked();
    await dialog.getByLabel("First party").check();
    const uris = dialog.getByLabel("Redirect URIs");
    await uris.fill("http://portal.example/callback\nhttps://portal.example/cb#section");
    await dialog.getByRole("button", { name: "Register client" }).click();
    await expect(uris).toHaveAttribute("aria-invalid", "true");
    await expect(dialog).toContainText(
      "Redirect URI 1 (http://portal.example/callback) must use https (http only for a loopback host).",
    );
    await expect(dialog).toContainText("Redirect URI 2 (https://portal.example/cb#section) must not have a fragment.");

    await uris.fill("https://portal.example/callback\nhttp://127.0.0.1:8080/callback");
    await dialog.getByRole("checkbox", { name: "Refresh token" }).check();
    await dialog.getByRole("checkbox", { name: "svc:org:read", exact: true }).check();
    await dialog.getByRole("button", { name: "Register client" }).click();

    const shown = page.getByRole("alertdialog", { name: "Copy the client secret" });
    await expect(shown).toContainText("This is the only time the client secret is shown.");
    await expect(shown.getByRole("button", { name: "Copy secret" })).toBeEnabled();
    const secret = await shown.getByLabel("Client secret").inputValue();
    expect(secret).toMatch(/^cds_/);
    const clientId = (await shown.locator("code").first().textContent()) ?? "";
    expect(await verifyClientSecret(dataLayer("system:e2e"), clientId, secret)).toBe(true);
    await shown.getByRole("button", { name: "I have copied the secret" }).click();
    await expect(shown).toBeHidden();
    await expect(page.getByText(secret)).toHaveCount(0);

    const row = page.getByRole("table", { name: "OAuth clients" }).getByRole("row", { name: new RegExp(name) });
    await expect(row).toContainText(clientId);
    await expect(row).toContainText("First party");
    await expect(row).toContainText("Active");

    await row.getByRole("button", { name: `Rotate the secret of ${name}` }).click();
    await page
      .getByRole("alertdialog", { name: `Issue a new secret for ${name}?` })
      .getByRole("button", { name: "Rotate secret" })
      .click();
    const rotated = await shown.getByLabel("Client secret").inputValue();
    expect(rotated).toMatch(/^cds_/);
    expect(rotated).not.toBe(secret);
    expect(await verifyClientSecret(dataLayer("system:e2e"), clientId, secret)).toBe(false);
    expect(await verifyClientSecret(dataLayer("system:e2e"), clientId, rotated)).toBe(true);
    await shown.getByRole("button", { name: "I have copied the secret" }).click();

    await row.getByRole("button", { name: `Deactivate ${name}` }).click();
    await expect(status(page, `${name} deactivated.`)).toBeVisible();
    await expect(row).toContainText("Inactive");
    expect(await verifyClientSecret(dataLayer("system:e2e"), clientId, rotated)).toBe(false);

    await row.getByRole("button", { name: `Delete ${name}` }).click();
    await page
      .getByRole("alertdialog", { name: `Delete ${name}?` })
      .getByRole("button", { name: "Delete client" })
      .click();
    await expect(status(page, `${name} deleted.`)).toBeVisible();
    await expect(row).toHaveCount(0);
  });
});

test.describe.serial("signed out", () => {
  test("a verified email alone does not sign in as a sys_admin", async ({ page }) => {
    await signInWithProvider(page, oidc.account.sub);
    await expect(page).toHaveURL(/\/console\/sign-in\?error=AccessDenied$/);
  });

  test("link the OpenID account from one's own profile, sign in with it, and unlink it", async ({ page }) => {
    // A dozen page loads and two round trips through the provider: more than one flow's usual bound
    // on a busy machine.
    test.slow();
    await offline(page);
    await signIn(page, { username: oidcUser.username, password: OIDC_USER_PASSWORD });
    await page.getByRole("link", { name: "Your account" }).click();
    await page.getByRole("button", { name: `Link ${oidc.name} account` }).click();
    await atProvider(page, oidc.account.sub);
    await expect(page).toHaveURL(/\/console\/account\?linked=oidc$/);
    await expect(status(page, `${oidc.name} account linked.`)).toBeVisible();
    const identities = page.getByRole("table", { name: `Linked identities of ${oidcUser.username}` });
    await expect(identities.getByRole("row", { name: /OpenID Connect/ })).toContainText(oidc.account.sub);

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect(page).toHaveURL(/\/console\/sign-in$/);
    // The provider still has its own session from the linking: it sends the browser straight back.
    await page.getByRole("button", { name: `Sign in with ${oidc.name}` }).click();
    await expect(page).toHaveURL(/\/console\/overview$/);
    await expect(page.getByRole("banner")).toContainText(`Signed in as ${oidc.account.name} (${oidcUser.username})`);

    await page.getByRole("link", { name: "Your account" }).click();
    const linked = identities.getByRole("row", { name: /OpenID Connect/ });
    await linked.getByRole("button", { name: `Unlink OpenID Connect ${oidc.account.sub}` }).click();
    await page
      .getByRole("alertdialog", { name: "Unlink this OpenID Connect account?" })
      .getByRole("button", { name: "Unlink" })
      .click();
    // Unlinking ends every session of the user, this one included.
    await expect(page).toHaveURL(/\/console\/sign-in$/);
    await page.goto("/console/api-keys");
    await expect(page).toHaveURL(/\/console\/sign-in$/);
  });

  test("an account that reaches no user is refused, and the sign-in page says why", async ({ page }) => {
    await signInWithProvider(page, oidc.stranger.sub);
    await expect(page).toHaveURL(/\/console\/sign-in\?error=AccessDenied$/);
    await expect(page.getByRole("main").getByRole("alert")).toContainText("No user here is linked to that account");
    await page.goto("/console/api-keys");
    await expect(page).toHaveURL(/\/console\/sign-in$/);
  });
});

test("Sign out everywhere ends the user's session in another browser", async ({ browser }) => {
  const username = `everywhere-${stamp}`;
  const password = "everywhere-password-1";
  const user = await createUser(readContext(system), createUserInput.parse({ username, password }));
  const sysAdmin = (await listRoles(readContext(system), { q: "sys_admin", scope: "system", limit: 10 })).data.find(
    (r) => r.name === "sys_admin",
  );
  await grantRole(readContext(system), user.id, { role_id: sysAdmin?.id ?? "", org_id: null });
  const laptop = await browser.newContext();
  const phone = await browser.newContext();
  try {
    const [here, there] = [await laptop.newPage(), await phone.newPage()];
    for (const page of [here, there]) {
      await signIn(page, { username, password });
      await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    }
    await here.getByRole("link", { name: "Your account" }).click();
    await here.getByRole("button", { name: "Sign out everywhere" }).click();
    await here
      .getByRole("alertdialog", { name: "Sign out everywhere?" })
      .getByRole("button", { name: "Sign out everywhere" })
      .click();
    await expect(here).toHaveURL(/\/console\/sign-in$/);
    await there.reload();
    await expect(there).toHaveURL(/\/console\/sign-in$/);
  } finally {
    await laptop.close();
    await phone.close();
  }
});
