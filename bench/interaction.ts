// `npm run bench:interaction`: how soon the console answers a click on the production build — a
// list screen's create button to its dialog's first field, a navigation link to the new section's
// heading — timed in the page, in a fresh browser. Targets and settings:
// docs/benchmarks.md#console-interaction.

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createBaseClient } from "@/server/db/client";
import { SECTIONS } from "@/components/console/sections";
import {
  ensureBuild,
  freshDatabase,
  intSetting,
  lpad,
  machineLine,
  median,
  pad,
  runBenchmark,
  say,
  sleep,
  startApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_interaction";
const RUNS = intSetting("BENCH_RUNS", 3, 1, 10);
const SCREENS = process.env.BENCH_SCREENS?.split(",").map((s) => s.trim());
const DIALOG_TARGET_MS = 100;
const MOVE_TARGET_MS = 300;
/** A click that shows nothing within this long is reported as a failure, not waited for. */
const WAIT_MS = 10_000;
/** The whole bench stops after this long, whatever is left. */
const DEADLINE = Date.now() + 20 * 60_000;

const chromiumPath = process.env.CHROMIUM_PATH ?? execFileSync("which", ["chromium"], { encoding: "utf8" }).trim();

/** The list screens and their create buttons; `{org}` stands for an organization's id. */
const DIALOGS: { screen: string; path: string; button: string }[] = [
  { screen: "API keys", path: "/console/api-keys", button: "Create API key" },
  { screen: "Organizations", path: "/console/organizations", button: "Create organization" },
  { screen: "Users", path: "/console/users", button: "Create user" },
  { screen: "Plugins", path: "/console/plugins", button: "Register version" },
  { screen: "Models", path: "/console/models", button: "Add model" },
  { screen: "OAuth clients", path: "/console/oauth-clients", button: "Register client" },
  { screen: "Platform settings", path: "/console/settings", button: "Add platform setting" },
  { screen: "Webhooks", path: "/console/webhooks", button: "Add endpoint" },
  { screen: "Org members", path: "/console/organizations/{org}/members", button: "Add member" },
  { screen: "Org settings", path: "/console/organizations/{org}/settings", button: "Add setting" },
  { screen: "Org LLM configs", path: "/console/organizations/{org}/llm-configs", button: "Add LLM config" },
  {
    screen: "Org orchestrators",
    path: "/console/organizations/{org}/orchestrators",
    button: "Create orchestrator",
  },
  {
    screen: "Org central points",
    path: "/console/organizations/{org}/central-points",
    button: "Create central point",
  },
  {
    screen: "Org service accounts",
    path: "/console/organizations/{org}/service-accounts",
    button: "Create service account",
  },
  { screen: "Org webhooks", path: "/console/organizations/{org}/webhooks", button: "Add endpoint" },
];

type SignedIn = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** Signs in through the sign-in form once, as a person would; the session is reused by every run. */
async function signInOnce(browser: Browser, baseUrl: string, password: string): Promise<SignedIn> {
  const context = await browser.newContext({ baseURL: baseUrl });
  try {
    const page = await context.newPage();
    await page.goto("/console/sign-in");
    await page.getByLabel("Username or email").fill("admin");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor({ timeout: 60_000 });
    return await context.storageState();
  } finally {
    await context.close();
  }
}

/** A fresh browser context (nothing cached) with the session. */
async function signedInContext(browser: Browser, baseUrl: string, session: SignedIn): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    storageState: session,
    viewport: { width: 1280, height: 900 },
  });
  // The functions handed to page.evaluate are compiled by tsx, which names them with a helper of its
  // own (`__name`): the page needs it too.
  await context.addInitScript("globalThis.__name = (fn) => fn;");
  return context;
}

/** Waits for the page to settle: no network for 500 ms, then `extraMs` more. */
async function settle(page: Page, extraMs: number): Promise<void> {
  await page.waitForLoadState("networkidle", { timeout: 30_000 }).catch(() => undefined);
  await sleep(extraMs);
}

/**
 * Arms a timer in the page: from the next pointerdown to the first frame in which `check` (the name
 * of a condition below) holds. Returns a handle to await after the click.
 */
async function armTimer(page: Page, check: "dialogField" | "newHeading"): Promise<() => Promise<number>> {
  await page.evaluate(
    ({ check, waitMs }) => {
      const before = document.querySelector("main h1")?.textContent ?? "";
      const visible = (el: Element | null | undefined): el is HTMLElement =>
        el instanceof HTMLElement && el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
      const conditions = {
        // The open dialog's first field, shown and enabled (so a click or Tab reaches it).
        dialogField: () => {
          const dialog = document.querySelector("dialog[open]");
          const field = dialog?.querySelector<HTMLElement>(
            "input:not([type=hidden]), select, textarea, [contenteditable=true]",
          );
          return visible(field) && !(field as HTMLInputElement).disabled && field.tabIndex >= 0;
        },
        // A heading other than the one before the click.
        newHeading: () => {
          const heading = document.querySelector("main h1");
          return visible(heading) && (heading.textContent ?? "") !== before && heading.textContent !== "";
        },
      };
      const holds = conditions[check];
      const w = window as unknown as { __benchTimer?: Promise<number> };
      w.__benchTimer = new Promise<number>((resolve, reject) => {
        addEventListener(
          "pointerdown",
          () => {
            const start = performance.now();
            const giveUp = setTimeout(() => reject(new Error(`nothing within ${waitMs} ms`)), waitMs);
            const frame = () => {
              if (holds()) {
                clearTimeout(giveUp);
                resolve(performance.now() - start);
              } else requestAnimationFrame(frame);
            };
            requestAnimationFrame(frame);
          },
          { capture: true, once: true },
        );
      });
    },
    { check, waitMs: WAIT_MS },
  );
  return () => page.evaluate(() => (window as unknown as { __benchTimer: Promise<number> }).__benchTimer);
}

async function dialogRun(browser: Browser, baseUrl: string, session: SignedIn, path: string, button: string) {
  const context = await signedInContext(browser, baseUrl, session);
  try {
    const page = await context.newPage();
    await page.goto(path, { waitUntil: "load" });
    await settle(page, 1_000);
    const elapsed = await armTimer(page, "dialogField");
    await page.getByRole("button", { name: button, exact: true }).first().click();
    return await elapsed();
  } finally {
    await context.close();
  }
}

/** One walk through the navigation from the overview: each link's click → heading time. */
async function moveRun(browser: Browser, baseUrl: string, session: SignedIn): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  const context = await signedInContext(browser, baseUrl, session);
  try {
    const page = await context.newPage();
    await page.goto("/console/overview", { waitUntil: "load" });
    await settle(page, 1_000);
    const order = [...SECTIONS.slice(1), SECTIONS[0]!];
    let from = SECTIONS[0]!.label;
    for (const section of order) {
      if (Date.now() > DEADLINE) break;
      const elapsed = await armTimer(page, "newHeading");
      await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: section.label }).click();
      times.set(`${from} → ${section.label}`, await elapsed());
      await page.waitForURL(`**${section.href}`);
      await settle(page, 1_000);
      from = section.label;
    }
  } finally {
    await context.close();
  }
  return times;
}

async function main() {
  const startedAt = new Date();
  const buildId = ensureBuild();
  const password = randomBytes(18).toString("base64url");
  const url = await freshDatabase(DB_NAME, password);
  const client = createBaseClient(url, { poolMax: 2 });
  const org = await client.organization.create({ data: { name: "Interaction Org" } });
  await client.$disconnect();
  const app = await startApp(url);
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  const session = await signInOnce(browser, app.baseUrl, password);
  say(`Console interaction on build ${buildId}, ${RUNS} run(s) each, medians in ms;`);
  try {
    // A first visit of every page warms the server (a production server renders a page faster the
    // second time), so that the runs measure the browser's wait, not the server's first render.
    const warm = await signedInContext(browser, app.baseUrl, session);
    const warmPage = await warm.newPage();
    for (const path of [...SECTIONS.map((s) => s.href), ...DIALOGS.map((d) => d.path.replace("{org}", org.id))])
      await warmPage.goto(path, { waitUntil: "load" });
    await warm.close();

    say(`${pad("dialog (click → first field)", 44)} ${lpad("median", 7)}  runs`);
    const dialogs: { screen: string; median: number | null; runs: (number | string)[] }[] = [];
    for (const { screen, path, button } of DIALOGS.filter((d) => !SCREENS || SCREENS.includes(d.screen))) {
      const runs: (number | string)[] = [];
      for (let i = 0; i < RUNS && Date.now() < DEADLINE; i++)
        runs.push(
          await dialogRun(browser, app.baseUrl, session, path.replace("{org}", org.id), button).catch(
            (e: Error) => `failed: ${e.message.split("\n")[0]}`,
          ),
        );
      const numbers = runs.filter((r): r is number => typeof r === "number");
      const m = numbers.length === runs.length && numbers.length > 0 ? median(numbers) : null;
      dialogs.push({ screen, median: m, runs });
      say(
        `${pad(`${screen} (${button})`, 44)} ${lpad(m === null ? "n/a" : m.toFixed(0), 7)}  ${runs.map((r) => (typeof r === "number" ? r.toFixed(0) : r)).join(", ")}`,
      );
    }

    const walks: Map<string, number>[] = [];
    for (let i = 0; i < RUNS && !SCREENS && Date.now() < DEADLINE; i++)
      walks.push(await moveRun(browser, app.baseUrl, session));
    say(`${pad("move (click → new heading)", 44)} ${lpad("median", 7)}  runs`);
    const moves = [...(walks[0]?.keys() ?? [])].map((move) => {
      const runs = walks.map((w) => w.get(move)).filter((t): t is number => t !== undefined);
      const m = median(runs);
      say(`${pad(move, 44)} ${lpad(m.toFixed(0), 7)}  ${runs.map((r) => r.toFixed(0)).join(", ")}`);
      return { move, median: m, runs };
    });

    const slowDialogs = dialogs.filter((d) => d.median === null || d.median > DIALOG_TARGET_MS);
    const slowMoves = moves.filter((m) => m.median > MOVE_TARGET_MS);
    say(
      slowDialogs.length
        ? `Dialogs over ${DIALOG_TARGET_MS} ms: ${slowDialogs.map((d) => d.screen).join(", ")}`
        : `Every dialog within ${DIALOG_TARGET_MS} ms.`,
    );
    say(
      slowMoves.length
        ? `Moves over ${MOVE_TARGET_MS} ms: ${slowMoves.map((m) => m.move).join(", ")}`
        : `Every move within ${MOVE_TARGET_MS} ms.`,
    );
    say(machineLine());
    say(
      `Results: ${await writeResults("interaction", startedAt, { build: buildId, runs: RUNS, dialogs, moves, loadavg: machineLine() })}`,
    );
  } finally {
    await browser.close();
  }
}

await runBenchmark(main, [DB_NAME]);
