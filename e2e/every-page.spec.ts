import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { consolePages, consoleUrl } from "./pages";

// Every console page, found from the app's folders so a new one is covered without anyone remembering
// to, visited once by a fresh browser (signed in as a sys_admin) and checked twice over:
// - its JavaScript as the browser receives it from `npm start` (uncompressed): at most 600 KiB on first
//   load, 1,000 KiB with what the page then loads by itself. Each test prints its row of the table in
//   docs/benchmarks.md and attaches it. See docs/decisions/014-console-page-weight.md and
//   docs/decisions/015-console-answers-at-once.md.
// - axe against WCAG 2.1 A and AA, in the light and the dark theme: no violation anywhere (contrast
//   included, which is where a theme usually fails). The themes follow the system's colour scheme in
//   CSS alone, so the settled page is checked light, switched to dark, and checked again by the rules
//   that read colours (the others see the same page in either theme).
// - on a phone (390 px wide) no page scrolls sideways: what is wider, a table, scrolls inside its card.
//   The console's layout follows the width in CSS alone (the usage chart by a ResizeObserver), so the
//   same page is narrowed rather than loaded again.

const BUDGET_KIB = 600;
const WITH_ON_DEMAND_BUDGET_KIB = 1_000;
/** How long a settled page is watched for what it loads when idle (requestIdleCallback waits ≤ 2 s). */
const IDLE_WATCH_MS = 3_000;
const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/** The WCAG 2.1 A/AA rules whose outcome depends on colours. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

const PHONE = { width: 390, height: 844 };

/** How wide the document is, and (to say what to fix) the widest elements that stick out past the screen. */
async function overflow(page: Page) {
  return page.evaluate(async () => {
    // A ResizeObserver answers in the next frame.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const width = document.documentElement.clientWidth;
    const culprits = [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => el.getBoundingClientRect().right > width + 1)
      .filter((el) => !el.closest("[data-scrolls]") && getComputedStyle(el.parentElement!).overflowX === "visible")
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 120));
    return { scrollWidth: document.documentElement.scrollWidth, width, culprits };
  });
}

/** axe's violations on the page as it stands (of `rules`, else all WCAG 2.1 A/AA): a line each. */
async function violations(page: Page, rules?: string[]): Promise<string[]> {
  // Colours that change with the theme may be mid-transition: axe reads them once they have settled.
  // (Only transitions: a spinner's animation never finishes.)
  await page.evaluate(() =>
    Promise.allSettled(
      document
        .getAnimations()
        .filter((animation) => animation instanceof CSSTransition)
        .map((animation) => animation.finished),
    ),
  );
  const axe = new AxeBuilder({ page }).options({ resultTypes: ["violations"] });
  const { violations: found } = await (rules ? axe.withRules(rules) : axe.withTags(WCAG)).analyze();
  return found.map(
    (violation) =>
      `${violation.id} (${violation.impact}) ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(" "))
        .join(" | ")}`,
  );
}

// One test a page, spread over the workers: they only read.
test.describe.configure({ mode: "parallel" });

for (const pattern of consolePages()) {
  test(`${pattern}: at most 600 KiB of JavaScript first, 1,000 KiB after; no WCAG 2.1 A/AA violation, light or dark; no sideways scroll at 390 px`, async ({
    browser,
  }, testInfo) => {
    // Three checks in one visit, the slowest of the suite's tests: the time of three.
    test.slow();
    const signedOut = pattern === "/console/sign-in";
    const context = await browser.newContext({
      colorScheme: "light",
      ...(signedOut ? {} : { storageState: STORAGE_STATE.admin }),
    });
    const page = await context.newPage();
    const bodies: Promise<{ path: string; bytes: number }>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "script")
        bodies.push(
          response.body().then(
            (body) => ({ path: new URL(response.url()).pathname, bytes: body.length }),
            () => ({ path: new URL(response.url()).pathname, bytes: 0 }),
          ),
        );
    });
    const url = await consoleUrl(pattern);
    const response = await page.goto(url, { waitUntil: "networkidle" });
    // What the page loads once idle comes after the network first falls quiet.
    await page.waitForTimeout(IDLE_WATCH_MS);
    await page.waitForLoadState("networkidle");
    expect(response?.status(), `${url} answers`).toBeLessThan(400);

    // The scripts the page's HTML names are its first load; those loaded after it come on demand.
    const html = (await response?.text()) ?? "";
    const scripts = await Promise.all(bodies);
    const named = (path: string) => html.includes(path);
    const kib = (list: typeof scripts) => list.reduce((total, s) => total + s.bytes, 0) / 1024;
    const firstLoad = kib(scripts.filter((s) => named(s.path)));
    const onDemand = kib(scripts.filter((s) => !named(s.path)));
    const landed = new URL(page.url()).pathname;
    const shown = pattern === "/console" ? `${pattern} (→ ${landed})` : pattern;
    const row = `| ${shown} | ${firstLoad.toFixed(0)} | ${scripts.filter((s) => named(s.path)).length} | ${onDemand.toFixed(0)} | ${(firstLoad + onDemand).toFixed(0)} |`;
    console.log(row);
    await testInfo.attach("page-weight.md", { body: row, contentType: "text/markdown" });

    const light = await violations(page);
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await violations(page, COLOUR_RULES);
    await page.setViewportSize(PHONE);
    const { scrollWidth, width, culprits } = await overflow(page);
    await context.close();

    expect(firstLoad, "KiB on first load").toBeLessThanOrEqual(BUDGET_KIB);
    expect(firstLoad + onDemand, "KiB with what it loads after").toBeLessThanOrEqual(WITH_ON_DEMAND_BUDGET_KIB);
    expect({ light, dark }, "axe's WCAG 2.1 A/AA violations").toEqual({ light: [], dark: [] });
    expect(scrollWidth, `wider than a phone's screen: ${culprits.join(" | ")}`).toBeLessThanOrEqual(width);
  });
}
