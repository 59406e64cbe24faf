import { expect, test, type Browser } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { consolePages, consoleUrl } from "./pages";

// Weighs every console page's JavaScript as a browser receives it from `npm start` (uncompressed,
// fresh browser, signed in as a sys_admin), pages found from the app's folders so a new one is
// weighed without anyone remembering to. Budgets: 600 KiB on first load, 1,000 KiB with what the
// page then loads by itself. Figures are printed (for docs/benchmarks.md) and attached to the test.
// See docs/decisions/014-console-page-weight.md and docs/decisions/015-console-answers-at-once.md.

const BUDGET_KIB = 600;
const WITH_ON_DEMAND_BUDGET_KIB = 1_000;
/** How long a settled page is watched for what it loads when idle (requestIdleCallback waits ≤ 2 s). */
const IDLE_WATCH_MS = 3_000;
/**
 * Bytes of JavaScript a fresh browser receives loading `url` (signed in unless `signedOut`): the
 * scripts the page's HTML names (its first load), and those loaded on demand after it (a chart's).
 */
async function scriptBytes(browser: Browser, url: string, signedOut: boolean) {
  const context = await browser.newContext(signedOut ? {} : { storageState: STORAGE_STATE.admin });
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
  const response = await page.goto(url, { waitUntil: "networkidle" });
  // What the page loads once idle comes after the network first falls quiet.
  await page.waitForTimeout(IDLE_WATCH_MS);
  await page.waitForLoadState("networkidle");
  const html = (await response?.text()) ?? "";
  const landed = new URL(page.url()).pathname;
  const scripts = await Promise.all(bodies);
  await context.close();
  const named = (path: string) => html.includes(path);
  const sum = (list: typeof scripts) => list.reduce((total, s) => total + s.bytes, 0) / 1024;
  return {
    status: response?.status(),
    landed,
    firstLoad: sum(scripts.filter((s) => named(s.path))),
    onDemand: sum(scripts.filter((s) => !named(s.path))),
    scripts: scripts.filter((s) => named(s.path)).length,
  };
}

// One test a page, spread over the workers (they only read); each prints its row of the table in
// docs/benchmarks.md and attaches it.
test.describe.configure({ mode: "parallel" });

for (const pattern of consolePages()) {
  test(`${pattern} takes at most 600 KiB of JavaScript first, 1,000 KiB with what it loads after`, async ({
    browser,
  }, testInfo) => {
    const url = await consoleUrl(pattern);
    const { status, landed, firstLoad, onDemand, scripts } = await scriptBytes(
      browser,
      url,
      pattern === "/console/sign-in",
    );
    expect(status, `${url} answers`).toBeLessThan(400);
    const page = pattern === "/console" ? `${pattern} (→ ${landed})` : pattern;
    const row = `| ${page} | ${firstLoad.toFixed(0)} | ${scripts} | ${onDemand.toFixed(0)} | ${(firstLoad + onDemand).toFixed(0)} |`;
    console.log(row);
    await testInfo.attach("page-weight.md", { body: row, contentType: "text/markdown" });
    expect(firstLoad, "KiB on first load").toBeLessThanOrEqual(BUDGET_KIB);
    expect(firstLoad + onDemand, "KiB with what it loads after").toBeLessThanOrEqual(WITH_ON_DEMAND_BUDGET_KIB);
  });
}
