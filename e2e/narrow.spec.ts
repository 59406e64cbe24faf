import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";

// The console on a phone (390 px wide): every section of the navigation is in view, and a dialog
// fits the screen. That no page scrolls sideways is checked on every page (every-page.spec.ts).

test.use({ storageState: STORAGE_STATE.admin, viewport: { width: 390, height: 844 } });

test("the navigation shows every section at 390 px, none cut off", async ({ page }) => {
  await page.goto("/console/overview");
  const nav = page.getByRole("navigation", { name: "Console" });
  for (const link of await nav.getByRole("link").all()) {
    const box = await link.boundingBox();
    expect(box, (await link.textContent()) ?? "").not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, (await link.textContent()) ?? "").toBeLessThanOrEqual(390);
  }
});

test("the create-key dialog fits the screen at 390 px", async ({ page }) => {
  await page.goto("/console/api-keys");
  await page.getByRole("button", { name: "Create API key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create API key" });
  await expect(dialog).toBeVisible();
  const box = await dialog.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
});
