import { expect, test } from "@playwright/test";
import { BUILT_IN_ROLES } from "../src/lib/permissions";
import { STORAGE_STATE } from "./accounts";
import { createOrganization } from "./console-flows";

const ORG_MEMBER = BUILT_IN_ROLES.find((role) => role.name === "org_member")!;

// A service account made in the console, as an organization's machine: created with an org role,
// given a key shown once, which then calls the API as the account, in that organization only.

test.use({ storageState: STORAGE_STATE.admin });

test("create a service account with a role and a key in the console, then call the API with the key", async ({
  page,
  request,
}) => {
  const id = Date.now().toString(36);
  const orgName = `E2E Robots ${id}`;
  const robot = `robot-${id}`;

  const orgId = await createOrganization(page, orgName);

  await page
    .getByRole("navigation", { name: "Organization sections" })
    .getByRole("link", { name: "Service accounts", exact: true })
    .click();
  await page.getByRole("button", { name: "Create service account" }).first().click();
  const create = page.getByRole("dialog", { name: `Create a service account in ${orgName}` });
  await create.getByLabel("Username").fill(robot);
  await create.getByLabel("Display name (optional)").fill("Nightly export");
  await create.getByLabel("Org role").selectOption({ label: `org_member — ${ORG_MEMBER.description}` });
  await create.getByRole("button", { name: "Create service account" }).click();
  await expect(create).toBeHidden();
  const row = page.getByRole("table", { name: `Service accounts of ${orgName}` }).getByRole("row", { name: robot });
  await expect(row).toContainText("org_member");

  // Its keys open below the list.
  await page
    .getByRole("button", { name: `Create key for ${robot}` })
    .first()
    .click();
  const dialog = page.getByRole("dialog", { name: "Create API key" });
  await dialog.getByLabel("Name").fill("export");
  await dialog.getByRole("checkbox", { name: "svc:org:read" }).check();
  await dialog.getByRole("radio", { name: "In 30 days" }).check();
  await dialog.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  const rawKey = await shown.getByLabel("New API key").inputValue();
  expect(rawKey).toMatch(/^cdk_[0-9A-Za-z]{49}$/);
  await shown.getByRole("button", { name: "I have copied the key" }).click();
  await expect(page.getByRole("table", { name: `API keys of ${robot}` })).toContainText(rawKey.slice(0, 12));

  const me = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({ auth: "api_key", user: { username: robot } });
  const org = await request.get(`/api/v1/organizations/${orgId}`, { headers: { "X-API-KEY": rawKey } });
  expect(org.status()).toBe(200);
  expect(await org.json()).toMatchObject({ id: orgId, name: orgName });
  const listed = await request.get("/api/v1/organizations", { headers: { "X-API-KEY": rawKey } });
  expect(((await listed.json()) as { data: { id: string }[] }).data.map((o) => o.id)).toEqual([orgId]);

  // Deleting the account ends the key.
  await row.getByRole("button", { name: `Delete ${robot}` }).click();
  await page
    .getByRole("alertdialog", { name: `Delete ${robot}?` })
    .getByRole("button", { name: "Delete service account" })
    .click();
  await expect(page.getByRole("status").filter({ hasText: `Service account ${robot} deleted` })).toBeVisible();
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } })).status()).toBe(401);
});
