import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { createOrganization, createServiceAccountWithKey, openCreateKeyDialog, uniqueName } from "./console-flows";

// Budgets and metadata in the console: a key created with credits and a monthly refill spends them
// on the API, shows its balance and next refill on its page, takes more through "Change balance",
// and carries the metadata typed in; a service account's keys have the same fields; and the verify
// permission is offered where roles are made.

test.use({ storageState: STORAGE_STATE.admin });

test("a key with credits and metadata: spent by the API, shown on its page, its balance changed", async ({
  page,
  request,
}) => {
  const name = uniqueName("e2e budget");
  const dialog = await openCreateKeyDialog(page);
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByRole("checkbox", { name: "svc:org:read" }).check();
  await dialog.getByRole("checkbox", { name: "Limit the key's usage with credits" }).check();
  await dialog.getByLabel("Credits", { exact: true }).fill("100");
  await dialog.getByRole("radio", { name: "Monthly" }).check();
  await dialog.getByLabel("Refill to").fill("100");
  await dialog.getByLabel("Day of the month").fill("15");
  const meta = dialog.getByLabel("Metadata (optional)");
  // Not an object: refused here, next to the field, before anything is sent.
  await meta.fill("[1, 2]");
  await dialog.getByRole("button", { name: "Create key" }).click();
  await expect(meta).toHaveAccessibleDescription(/Write a JSON object/);
  await meta.fill('{"plan": "pro"}');
  await dialog.getByRole("button", { name: "Create key" }).click();

  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  const rawKey = await shown.getByLabel("New API key").inputValue();
  await shown.getByRole("button", { name: "I have copied the key" }).click();

  const me = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(me.status()).toBe(200);
  expect(me.headers()["credits-remaining"]).toBe("99");
  expect(await me.json()).toMatchObject({ key: { meta: { plan: "pro" } } });

  await page.getByRole("table", { name: "Your API keys" }).getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByTestId("credits-remaining")).toHaveText("99 left");
  await expect(page.getByText("To 100 on day 15 of each month")).toBeVisible();
  await expect(page.getByText(/"plan": "pro"/)).toBeVisible();

  await page.getByRole("button", { name: "Change balance" }).click();
  const change = page.getByRole("dialog", { name: `Change the balance of “${name}”` });
  await expect(change.getByRole("radio", { name: "Add" })).toBeChecked();
  await change.getByLabel("Credits", { exact: true }).fill("21");
  await change.getByRole("button", { name: "Change balance" }).click();
  await expect(change).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `API key “${name}” has 120 credits.` })).toBeVisible();
  await expect(page.getByTestId("credits-remaining")).toHaveText("120 left");
  const after = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(after.headers()["credits-remaining"]).toBe("119");

  // Editing the name leaves the balance alone; the metadata is replaced.
  await page.getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: `Edit “${name}”` });
  await expect(edit.getByRole("checkbox", { name: "Limit the key's usage with credits" })).toBeChecked();
  await edit.getByLabel("Metadata (optional)").fill('{"plan": "team"}');
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByText(/"plan": "team"/)).toBeVisible();
  await expect(page.getByTestId("credits-remaining")).toHaveText("119 left");
});

test("a service account's key is created with credits, and its balance is set from its row", async ({
  page,
  request,
}) => {
  const id = Date.now().toString(36);
  const orgName = `E2E Budgets ${id}`;
  const robot = `budget-robot-${id}`;
  await createOrganization(page, orgName);
  const rawKey = await createServiceAccountWithKey(
    page,
    { orgName, username: robot },
    {
      name: "metered",
      fill: async (dialog) => {
        await dialog.getByRole("checkbox", { name: "Limit the key's usage with credits" }).check();
        await dialog.getByLabel("Credits", { exact: true }).fill("5");
      },
    },
  );

  const row = page.getByRole("table", { name: `API keys of ${robot}` }).getByRole("row", { name: /metered/ });
  await row.getByRole("button", { name: "Change the balance of metered" }).click();
  const change = page.getByRole("dialog", { name: "Change the balance of “metered”" });
  await change.getByRole("radio", { name: "Set to" }).check();
  await change.getByLabel("Credits", { exact: true }).fill("1");
  await change.getByRole("button", { name: "Change balance" }).click();
  await expect(page.getByRole("status").filter({ hasText: "API key “metered” has 1 credit." })).toBeVisible();

  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } })).status()).toBe(200);
  const spent = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(spent.status()).toBe(429);
  expect(await spent.json()).toMatchObject({ code: "credits_exhausted" });
});

test("the verify permission is offered where a role is made", async ({ page }) => {
  await page.goto("/console/roles/new");
  await page.getByRole("radio", { name: /^System/ }).check();
  await expect(page.getByRole("checkbox", { name: "svc:system:api_keys:verify" })).toBeVisible();
});
