import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { consolePages, consoleUrl } from "./pages";

// Every console page, in the light and the dark theme, checked by axe against WCAG 2.1 A and AA:
// no violation anywhere (contrast included, which is where a theme usually fails). One test a page
// and theme, spread over the workers: they only read.

test.describe.configure({ mode: "parallel" });

const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

for (const colorScheme of ["light", "dark"] as const) {
  for (const pattern of consolePages()) {
    test(`axe finds no WCAG 2.1 A/AA violation on ${pattern} (${colorScheme})`, async ({ browser }) => {
      const signedOut = pattern === "/console/sign-in";
      const context = await browser.newContext({
        colorScheme,
        ...(signedOut ? {} : { storageState: STORAGE_STATE.admin }),
      });
      const page = await context.newPage();
      await page.goto(await consoleUrl(pattern), { waitUntil: "networkidle" });
      const { violations } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
      await context.close();
      const found = violations.map(
        (violation) =>
          `${violation.id} (${violation.impact}) ${violation.nodes
            .slice(0, 3)
            .map((node) => node.target.join(" "))
            .join(" | ")}`,
      );
      expect(found).toEqual([]);
    });
  }
}

/** The colour's hue (degrees) and chroma (0–1: how far from grey), from an `rgb(…)` value. */
function hueOf(color: string): { hue: number; chroma: number } {
  const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => Number(v) / 255) as [
    number,
    number,
    number,
  ];
  const max = Math.max(r, g, b);
  const chroma = max - Math.min(r, g, b);
  const hue =
    chroma === 0
      ? 0
      : max === r
        ? (60 * ((g - b) / chroma) + 360) % 360
        : max === g
          ? 60 * ((b - r) / chroma) + 120
          : 60 * ((r - g) / chroma) + 240;
  return { hue, chroma };
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`links keep a colour of their own in the ${colorScheme} theme`, async ({ browser }) => {
    const context = await browser.newContext({ colorScheme, storageState: STORAGE_STATE.admin });
    const page = await context.newPage();
    await page.goto("/console/overview");
    const link = page.getByRole("link", { name: "Open the audit log" });
    const colour = hueOf(await link.evaluate((el) => getComputedStyle(el).color));
    // The brand's blue, clearly coloured: not a near-white tint (the dark theme's links were #dbe6ff,
    // chroma 0.14, hardly told from the text around them).
    expect(colour.chroma).toBeGreaterThan(0.3);
    expect(colour.hue).toBeGreaterThan(200);
    expect(colour.hue).toBeLessThan(260);
    await context.close();
  });
}
