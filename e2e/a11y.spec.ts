import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { consoleUrls } from "./pages";

// Every console page, in the light and the dark theme, checked by axe against WCAG 2.1 A and AA:
// no violation anywhere (contrast included, which is where a theme usually fails).

const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

for (const colorScheme of ["light", "dark"] as const) {
  test(`axe finds no WCAG 2.1 A/AA violation on any console page (${colorScheme})`, async ({ browser }) => {
    test.setTimeout(420_000);
    const found: string[] = [];
    for (const { pattern, url } of await consoleUrls()) {
      const signedOut = pattern === "/console/sign-in";
      const context = await browser.newContext({
        colorScheme,
        ...(signedOut ? {} : { storageState: STORAGE_STATE.admin }),
      });
      const page = await context.newPage();
      await page.goto(url, { waitUntil: "networkidle" });
      const { violations } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
      for (const violation of violations)
        found.push(
          `${pattern}: ${violation.id} (${violation.impact}) ${violation.nodes
            .slice(0, 3)
            .map((node) => node.target.join(" "))
            .join(" | ")}`,
        );
      await context.close();
    }
    expect(found).toEqual([]);
  });
}
