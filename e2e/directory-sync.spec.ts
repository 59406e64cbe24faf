import { expect, test, type Page } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { createOrganization, uniqueName } from "./console-flows";

// Directory sync as an organization's admin sets it up: the Directory sync section gives the base
// URL and a token shown once; the directory (played here by plain HTTP calls with that token, as
// Okta and Entra ID make them) provisions a person and a group; the admin maps the group to a role,
// sees the person suspended when the directory deactivates them, reads the requests, and revokes
// the token, after which the directory is refused.

test.use({ storageState: STORAGE_STATE.admin });

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function openDirectorySync(page: Page, orgId: string) {
  await page.goto(`/console/organizations/${orgId}`);
  await page
    .getByRole("navigation", { name: "Organization sections" })
    .getByRole("link", { name: "Directory sync", exact: true })
    .click();
  await expect(page).toHaveURL(`/console/organizations/${orgId}/directory-sync`);
}

test("an admin gives a directory a token, maps its group to a role, watches it work, and revokes it", async ({
  page,
}) => {
  const name = uniqueName("Directory");
  const orgId = await createOrganization(page, name);
  await openDirectorySync(page, orgId);

  const baseUrlField = page.getByLabel("SCIM base URL", { exact: true });
  await expect(baseUrlField).toHaveValue(/^http:\/\/localhost:\d+\/api\/scim\/v2$/);
  const baseUrl = await baseUrlField.inputValue();
  await page.getByRole("button", { name: "Create token" }).first().click();
  const form = page.getByRole("dialog", { name: "Create a SCIM token" });
  await form.getByLabel("Name").fill("Okta");
  await form.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByRole("alertdialog", { name: "Your new SCIM token" });
  await expect(shown.getByText("This is the only time the token is shown")).toBeVisible();
  const token = await shown.getByLabel("SCIM token", { exact: true }).inputValue();
  expect(token).toMatch(/^scim_[0-9A-Za-z]{49}$/);
  await shown.getByRole("button", { name: "I have copied the token" }).click();
  const tokens = page.getByRole("table", { name: "SCIM tokens" });
  await expect(tokens.getByRole("row", { name: /Okta/ })).toContainText("active");

  // The directory at work.
  const directory = (method: string, path: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const email = `ada@${name.split(" ").at(-1)}.directory.e2e.test`;
  const created = await directory("POST", "/Users", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName: email,
    displayName: "Ada Lovelace",
    emails: [{ value: email, type: "work", primary: true }],
  });
  expect(created.status).toBe(201);
  const user = (await created.json()) as { id: string };
  const group = await directory("POST", "/Groups", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
    displayName: "Engineering",
    members: [{ value: user.id }],
  });
  expect(group.status).toBe(201);

  await page.reload();
  const people = page.getByRole("table", { name: "Provisioned people" });
  await expect(people.getByRole("row", { name: new RegExp(escaped(email)) })).toContainText("active");
  const groups = page.getByRole("table", { name: "Groups" });
  await expect(groups.getByRole("row", { name: /Engineering/ })).toContainText("none");
  // Its one member: the person the directory put in it.
  await expect(
    groups
      .getByRole("row", { name: /Engineering/ })
      .getByRole("cell")
      .first(),
  ).toHaveText("1");

  await page.getByRole("button", { name: "Edit roles Engineering" }).click();
  const roles = page.getByRole("dialog", { name: "Roles of Engineering" });
  await roles.getByRole("checkbox", { name: /^org_admin/ }).check();
  await roles.getByRole("button", { name: "Save roles" }).click();
  await expect(page.getByText("The roles of Engineering are saved.")).toBeVisible();
  await expect(groups.getByRole("row", { name: /Engineering/ })).toContainText("org_admin");

  const deactivated = await directory("PATCH", `/Users/${user.id}`, {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    Operations: [{ op: "replace", value: { active: false } }],
  });
  expect(deactivated.status).toBe(200);
  await page.reload();
  await expect(people.getByRole("row", { name: new RegExp(escaped(email)) })).toContainText("suspended");
  // Requests are listed once written, just after they are answered: Refresh until the last is in.
  const requests = page.getByRole("table", { name: "Latest requests" });
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(requests.getByRole("row", { name: /PATCH \/Users/ })).toContainText("200", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(requests.getByRole("row", { name: /POST \/Users/ })).toContainText("201");

  await page.getByRole("button", { name: "Revoke token Okta" }).click();
  await page
    .getByRole("alertdialog", { name: "Revoke the token Okta?" })
    .getByRole("button", { name: "Revoke token" })
    .click();
  await expect(page.getByText("Token Okta revoked.")).toBeVisible();
  await expect(tokens.getByRole("row", { name: /Okta/ })).toContainText("revoked");
  expect((await directory("GET", "/Users")).status).toBe(401);
});
