import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { createKeyInConsole, uniqueName } from "./console-flows";

// A key's lifecycle in the console, signed in as the sys_admin: roll a key and use the new one,
// open a key's page, change the key there and read its usage chart; the overview is the landing
// page.

test.use({ storageState: STORAGE_STATE.admin });

test("roll a key without grace: the new key is shown once and works, the old one is refused", async ({
  page,
  request,
}) => {
  const name = uniqueName("e2e roll");
  const oldKey = await createKeyInConsole(page, name, "svc:system:orgs:read");
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": oldKey } })).status()).toBe(200);

  const row = page.getByRole("table", { name: "Your API keys" }).getByRole("row", { name: new RegExp(name) });
  await row.getByRole("button", { name: `Roll ${name}` }).click();
  const roll = page.getByRole("dialog", { name: `Roll “${name}”?` });
  await expect(roll.getByRole("radio", { name: "24 hours" })).toBeChecked();
  await roll.getByRole("radio", { name: "None" }).check();
  await roll.getByRole("button", { name: "Roll key" }).click();

  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  const newKey = await shown.getByLabel("New API key").inputValue();
  expect(newKey).toMatch(/^cdk_[0-9A-Za-z]+$/);
  expect(newKey).not.toBe(oldKey);
  await shown.getByRole("button", { name: "I have copied the key" }).click();
  await expect(page.getByRole("status").filter({ hasText: `API key “${name}” rolled.` })).toBeVisible();

  const me = await request.get("/api/v1/me", { headers: { "X-API-KEY": newKey } });
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({
    key: { key_prefix: newKey.slice(0, 12) },
    permissions: ["svc:system:orgs:read"],
  });
  const old = await request.get("/api/v1/me", { headers: { "X-API-KEY": oldKey } });
  expect(old.status()).toBe(401);
  expect(await old.json()).toMatchObject({ code: "api_key_expired" });
});

test("a key expiring within a week is marked in the list: the old key of a roll with a day's grace", async ({
  page,
}) => {
  const name = uniqueName("e2e expiring");
  await createKeyInConsole(page, name, "svc:system:orgs:read");
  const rows = page.getByRole("table", { name: "Your API keys" }).getByRole("row", { name: new RegExp(name) });
  await expect(rows.filter({ hasText: "Active" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "Expires soon" })).toHaveCount(0);

  await rows.getByRole("button", { name: `Roll ${name}` }).click();
  const roll = page.getByRole("dialog", { name: `Roll “${name}”?` });
  await expect(roll.getByRole("radio", { name: "24 hours" })).toBeChecked();
  await roll.getByRole("button", { name: "Roll key" }).click();
  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  await shown.getByRole("button", { name: "I have copied the key" }).click();

  // The new key (90 days, like the old one) stays active; the old one ends tomorrow.
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: "Expires soon" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "Active" })).toHaveCount(1);
});

test("edit a key's networks: a request from elsewhere is refused with ip_not_allowed", async ({ page, request }) => {
  const name = uniqueName("e2e restrict");
  const rawKey = await createKeyInConsole(page, name, "svc:system:orgs:read");
  const row = page.getByRole("table", { name: "Your API keys" }).getByRole("row", { name: new RegExp(name) });
  await row.getByRole("button", { name: `Edit ${name}` }).click();
  const edit = page.getByRole("dialog", { name: `Edit “${name}”` });
  const networks = edit.getByLabel(/Networks/);
  await networks.fill("not-a-network");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByText(/CIDR/).first()).toBeVisible();
  await networks.fill("203.0.113.0/24");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toBeHidden();
  const refused = await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ code: "ip_not_allowed" });
});

test("open a key's page: its usage chart counts the requests made with it", async ({ page, request }) => {
  const name = uniqueName("e2e usage");
  const rawKey = await createKeyInConsole(page, name, "svc:system:orgs:read");
  for (let i = 0; i < 3; i++)
    expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": rawKey } })).status()).toBe(200);
  expect(
    (
      await request.get("/api/v1/organizations/00000000-0000-7000-8000-000000000000/members", {
        headers: { "X-API-KEY": rawKey },
      })
    ).status(),
  ).toBe(403);

  await page.getByRole("table", { name: "Your API keys" }).getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Requests", exact: true })).toBeVisible();
  // Counts reach the database with the next bookkeeping flush (every few seconds): reload until then.
  // The key and its usage are read apart: under load the first reload may show one before the other.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("usage-total-2xx")).toHaveText("3", { timeout: 1_000 });
    await expect(page.getByTestId("last-address")).not.toBeEmpty({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("usage-total-403")).toHaveText("1");
  // The bars are drawn (a canvas), over the buckets that had requests.
  const bars = page.getByTestId("usage-chart").locator("[data-bars]");
  await expect(bars.locator("canvas").first()).toBeVisible();
  await expect(bars).toHaveAttribute("data-bars", /^[1-9]/);
});

test("a key's page offers its owner edit, roll and revoke, and each works there", async ({ page, request }) => {
  const name = uniqueName("e2e detail");
  const oldKey = await createKeyInConsole(page, name, "svc:system:orgs:read");
  await page.getByRole("table", { name: "Your API keys" }).getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const saidSo = (text: string) => page.getByRole("status").filter({ hasText: text });

  const renamed = `${name} renamed`;
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const edit = page.getByRole("dialog", { name: `Edit “${name}”` });
  await edit.getByLabel("Name").fill(renamed);
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(saidSo(`API key “${renamed}” saved.`)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: renamed })).toBeVisible();

  // Rolled with the default grace: the new key works, and this (old) one until it is revoked.
  await page.getByRole("button", { name: "Roll", exact: true }).click();
  const roll = page.getByRole("dialog", { name: `Roll “${renamed}”?` });
  await roll.getByRole("button", { name: "Roll key" }).click();
  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  const newKey = await shown.getByLabel("New API key").inputValue();
  await shown.getByRole("button", { name: "I have copied the key" }).click();
  await expect(saidSo(`API key “${renamed}” rolled.`)).toBeVisible();
  await expect(page.getByText("Expires soon")).toBeVisible();
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": newKey } })).status()).toBe(200);
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": oldKey } })).status()).toBe(200);

  await page.getByRole("button", { name: "Revoke", exact: true }).click();
  const confirm = page.getByRole("alertdialog", { name: `Revoke “${renamed}”?` });
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(saidSo(`API key “${renamed}” revoked.`)).toBeVisible();
  await expect(page.getByText("Revoked", { exact: true })).toBeVisible();
  // A revoked key has nothing left to change.
  for (const action of ["Edit", "Roll", "Revoke"])
    await expect(page.getByRole("button", { name: action, exact: true })).toHaveCount(0);
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": oldKey } })).status()).toBe(401);
  expect((await request.get("/api/v1/me", { headers: { "X-API-KEY": newKey } })).status()).toBe(200);
});

test("the overview's chart draws 7 days by day, or 24 hours by hour", async ({ page }) => {
  await page.goto("/console/overview");
  const chart = page.getByRole("figure", { name: "Key requests across the platform" });
  await expect(chart.locator("figcaption")).toContainText("Last 7 days, by day:");
  await chart.getByRole("group", { name: "Range" }).getByText("Last 24 hours").click();
  await expect(chart.locator("figcaption")).toContainText("Last 24 hours, by hour:");
});

test("the overview is the console's landing page and first in the navigation", async ({ page }) => {
  await page.goto("/console");
  await expect(page).toHaveURL(/\/console\/overview$/);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link").first()).toHaveText("Overview");
  await expect(page.getByText("Active API keys")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Key requests" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Keys refused most" })).toBeVisible();
});
