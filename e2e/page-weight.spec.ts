import { expect, test, type Browser } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { consolePages, segmentValues } from "./pages";

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

test("a console page takes at most 600 KiB of JavaScript first, 1,000 KiB with what it loads after", async ({
  browser,
}, testInfo) => {
  test.setTimeout(480_000);
  const values = await segmentValues();
  const rows: { page: string; firstLoad: number; onDemand: number; scripts: number }[] = [];
  for (const pattern of consolePages()) {
    const url = pattern.replace(/\[[^\]]+\]/g, (segment) => values[segment] ?? segment);
    const { status, landed, ...weight } = await scriptBytes(browser, url, pattern === "/console/sign-in");
    expect(status, `${url} answers`).toBeLessThan(400);
    rows.push({ page: pattern === "/console" ? `${pattern} (→ ${landed})` : pattern, ...weight });
  }
  const table = rows
    .map(
      (r) =>
        `| ${r.page} | ${r.firstLoad.toFixed(0)} | ${r.scripts} | ${r.onDemand.toFixed(0)} | ${(r.firstLoad + r.onDemand).toFixed(0)} |`,
    )
    .join("\n");
  console.log(
    `\n| page | first load, KiB | scripts | on demand, KiB | with on demand, KiB |\n|---|--:|--:|--:|--:|\n${table}`,
  );
  await testInfo.attach("page-weight.md", { body: table, contentType: "text/markdown" });
  expect(rows.filter((r) => r.firstLoad > BUDGET_KIB).map((r) => `${r.page}: ${r.firstLoad.toFixed(0)} KiB`)).toEqual(
    [],
  );
  expect(
    rows
      .filter((r) => r.firstLoad + r.onDemand > WITH_ON_DEMAND_BUDGET_KIB)
      .map((r) => `${r.page}: ${(r.firstLoad + r.onDemand).toFixed(0)} KiB with what it loads after`),
  ).toEqual([]);
});
