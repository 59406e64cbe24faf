import { expect, test } from "@playwright/test";
import { MEMBER, STORAGE_STATE } from "./accounts";
import { createKeyInConsole, openCreateKeyDialog, uniqueName } from "./console-flows";

// The API keys screen, signed in as the sys_admin (state kept by e2e/auth.setup.ts).

test.use({ storageState: STORAGE_STATE.admin });

test("create a key, read it once, call the API with it, revoke it, and the API refuses it", async ({
  page,
  request,
}) => {
  const name = uniqueName("e2e flow");
  const dialog = await openCreateKeyDialog(page);
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByRole("checkbox", { name: "svc:system:api_keys:read" }).check();
  await dialog.getByRole("checkbox", { name: "svc:org:read" }).check();
  await dialog.getByRole("radio", { name: "In 30 days" }).check();
  await dialog.getByRole("button", { name: "Create key" }).click();

  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  await expect(shown).toContainText("will not be shown again");
  const rawKey = await shown.getByLabel("New API key").inputValue();
  expect(rawKey).toMatch(/^cdk_[0-9A-Za-z]+$/);
  await expect(shown.getByRole("button", { name: "Copy key" })).toBeEnabled();
  // One keystroke must not lose the key: Escape (even pressed again) leaves the dialog and the key.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  await expect(shown).toBeVisible();
  await expect(shown.getByLabel("New API key")).toHaveValue(rawKey);

  const me = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({
    auth: "api_key",
    user: { username: "e2e-admin" },
    key: { key_prefix: rawKey.slice(0, 12) },
    permissions: ["svc:system:api_keys:read", "svc:org:read"],
  });

  await shown.getByRole("button", { name: "I have copied the key" }).click();
  await expect(shown).toBeHidden();
  await expect(page.getByText(rawKey)).toHaveCount(0);

  const row = page.getByRole("table", { name: "Your API keys" }).getByRole("row", { name: new RegExp(name) });
  await expect(row).toContainText(rawKey.slice(0, 12));
  await expect(row).toContainText("Active");
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  const confirm = page.getByRole("alertdialog", { name: `Revoke “${name}”?` });
  await expect(confirm).toContainText("stops working at once");
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button", { name: `Revoke ${name}` })).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: `API key “${name}” revoked.` })).toBeVisible();

  const after = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(after.status()).toBe(401);
  expect(await after.json()).toMatchObject({ code: "api_key_revoked" });
});

test("a key created with a rate limit is held to it", async ({ page, request }) => {
  const dialog = await openCreateKeyDialog(page);
  await dialog.getByLabel("Name").fill(uniqueName("e2e limited"));
  await dialog.getByRole("checkbox", { name: "svc:org:read" }).check();
  const limit = dialog.getByLabel(/Rate limit/);
  await limit.fill("a lot");
  await dialog.getByRole("button", { name: "Create key" }).click();
  await expect(limit).toHaveAccessibleDescription(/Write the rate limit as requests\/seconds, like 600\/60\./);
  await expect(limit).toBeFocused();
  await limit.fill("2/60");
  await dialog.getByRole("button", { name: "Create key" }).click();

  const rawKey = await page
    .getByRole("alertdialog", { name: "Copy your new API key" })
    .getByLabel("New API key")
    .inputValue();
  const first = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(first.headers()["ratelimit-policy"]).toBe('"key";q=2;w=60');
  expect(await first.json()).toMatchObject({ key: { rate_limit: { requests: 2, window_seconds: 60 } } });
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } })).status()).toBe(200);
  const third = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(third.status()).toBe(429);
  expect(Number(third.headers()["retry-after"])).toBeGreaterThan(0);
});

test("the revoke confirmation can be cancelled", async ({ page }) => {
  const name = uniqueName("e2e keep");
  await createKeyInConsole(page, name, "svc:models:read");

  const row = page.getByRole("row", { name: new RegExp(name) });
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("alertdialog")).toBeHidden();
  await expect(row).toContainText("Active");
});

test("the create dialog shows what to fix next to the field that caused it", async ({ page }) => {
  const dialog = await openCreateKeyDialog(page);
  await dialog.getByRole("button", { name: "Create key" }).click();

  const nameField = dialog.getByLabel("Name");
  await expect(nameField).toHaveAttribute("aria-invalid", "true");
  await expect(nameField).toHaveAccessibleDescription(/Name must not be empty\./);
  await expect(nameField).toBeFocused();
  await expect(dialog.getByRole("group", { name: "Scopes" })).toHaveAccessibleDescription(/Pick at least one scope\./);

  // Dangerous permissions are not offered at all (no key may carry one), only counted.
  await expect(dialog.getByRole("checkbox", { name: "svc:system:users:write" })).toHaveCount(0);
  await expect(dialog).toContainText(/\d+ dangerous permissions are left out: no API key ever carries one\./);
  // The search narrows the scopes by name or by what they allow.
  await dialog.getByLabel("Find a scope").fill("conversations read");
  await expect(dialog.getByRole("checkbox", { name: "svc:conversations:read" })).toBeVisible();
  await expect(dialog.getByRole("checkbox", { name: "svc:org:read" })).toHaveCount(0);
  await dialog.getByLabel("Find a scope").fill("");

  // A date in the past passes the form's own checks; the server refuses it, next to the date.
  await nameField.fill(uniqueName("e2e invalid"));
  await dialog.getByRole("checkbox", { name: "svc:org:read" }).check();
  await dialog.getByRole("radio", { name: "On a date" }).check();
  const date = dialog.getByLabel("Expiry date");
  await date.fill("2020-01-01");
  await dialog.getByRole("button", { name: "Create key" }).click();
  await expect(date).toHaveAccessibleDescription(/Expiry must be in the future\./);
  await expect(date).toBeFocused();
  await expect(nameField).not.toHaveAttribute("aria-invalid", "true");

  // Escape closes the dialog without creating anything.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("row", { name: /e2e invalid/ })).toHaveCount(0);
});

test("the status filter shows active or revoked keys only", async ({ page }) => {
  await page.goto("/console/api-keys");
  const table = page.getByRole("table", { name: "Your API keys" });
  await page.getByRole("group", { name: "Status" }).getByText("Revoked").click();
  await expect(table.getByRole("row").filter({ hasText: "Active" })).toHaveCount(0);
  await page.getByRole("group", { name: "Status" }).getByText("Active").click();
  await expect(table.getByRole("row").filter({ hasText: "Revoked" })).toHaveCount(0);
});

test("a sys_admin switches to another user's keys and back", async ({ page }) => {
  await page.goto("/console/api-keys");
  // The matches come as typing pauses: no button to press.
  await page.getByLabel(/Show another user/).fill(MEMBER.username);
  await page.getByRole("button", { name: `Show the keys of ${MEMBER.username}` }).click();
  await expect(page.getByText(`Showing the keys of ${MEMBER.username}`)).toBeVisible();
  await expect(page.getByText(`${MEMBER.username} has no API keys.`)).toBeVisible();
  await expect(page.getByRole("button", { name: "Create API key" })).toHaveCount(0);
  // With a status filter on, the empty list says nothing matches, and clearing the filter says why.
  await page.getByRole("group", { name: "Status" }).getByText("Revoked").click();
  await expect(page.getByText("No API keys match these filters.")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page.getByRole("group", { name: "Status" }).getByRole("radio", { name: "All" })).toBeChecked();
  await expect(page.getByText(`${MEMBER.username} has no API keys.`)).toBeVisible();
  await page.getByRole("button", { name: "Back to my keys" }).click();
  await expect(page.getByRole("button", { name: "Create API key" }).first()).toBeVisible();
});
