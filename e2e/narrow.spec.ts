import { expect, test, type Page } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { consolePages, consoleUrl } from "./pages";

// The console on a phone (390 px wide): no page scrolls sideways (what is wider, a table, scrolls
// inside its card), every section of the navigation is in view, and a dialog fits the screen.

test.use({ storageState: STORAGE_STATE.admin, viewport: { width: 390, height: 844 } });
// One test a page, spread over the workers: they only read.
test.describe.configure({ mode: "parallel" });

/** How wide the document is, and (to say what to fix) the widest elements that stick out past the screen. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits = [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => el.getBoundingClientRect().right > width + 1)
      .filter((el) => !el.closest("[data-scrolls]") && getComputedStyle(el.parentElement!).overflowX === "visible")
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 120));
    return { scrollWidth: document.documentElement.scrollWidth, width, culprits };
  });
}

for (const pattern of consolePages()) {
  test(`${pattern} does not scroll sideways at 390 px`, async ({ browser }) => {
    const signedOut = pattern === "/console/sign-in";
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      ...(signedOut ? {} : { storageState: STORAGE_STATE.admin }),
    });
    const page = await context.newPage();
    await page.goto(await consoleUrl(pattern), { waitUntil: "networkidle" });
    const { scrollWidth, width, culprits } = await overflow(page);
    await context.close();
    expect(scrollWidth, `wider than the screen: ${culprits.join(" | ")}`).toBeLessThanOrEqual(width);
  });
}

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
