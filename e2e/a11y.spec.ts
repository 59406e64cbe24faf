import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";

// Beyond what axe checks on every page (every-page.spec.ts): the console's links stand out from
// the text around them in both themes.

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
