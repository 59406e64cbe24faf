import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { createOrganization, createServiceAccountWithKey } from "./console-flows";

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

  const rawKey = await createServiceAccountWithKey(
    page,
    { orgName, username: robot, displayName: "Nightly export" },
    { name: "export", fill: (dialog) => dialog.getByRole("radio", { name: "In 30 days" }).check() },
  );
  expect(rawKey).toMatch(/^cdk_[0-9A-Za-z]{49}$/);
  const row = page.getByRole("table", { name: `Service accounts of ${orgName}` }).getByRole("row", { name: robot });
  await expect(row).toContainText("org_member");
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
