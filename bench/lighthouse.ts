// `npm run bench:lighthouse`: Lighthouse's desktop scores for the console pages a new sys_admin
// meets first, on the production build, signed in. Lighthouse runs through npx at a pinned version:
// it is a tool for this bench only and too heavy for every install. See docs/benchmarks.md#console-lighthouse.

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBaseClient } from "@/server/db/client";
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
  signIn,
  startApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_lighthouse";
const LIGHTHOUSE = "lighthouse@13.5.0";
const RUNS = intSetting("BENCH_RUNS", 3, 1, 10);
// A comma-separated list of pages to measure (as the results name them, e.g. /console/api-keys);
// empty: every page.
const ONLY = (process.env.BENCH_PAGES ?? "")
  .split(",")
  .map((p) => p.trim())
  .filter(Boolean);
// A folder to keep each run's full JSON report in, to see which audits cost the points.
const KEEP_REPORTS = process.env.BENCH_KEEP_REPORTS ?? "";
const TARGET = 90;
const CATEGORIES = ["performance", "accessibility", "best-practices"] as const;
type Scores = Record<(typeof CATEGORIES)[number], number>;

const chromium = process.env.CHROMIUM_PATH ?? execFileSync("which", ["chromium"], { encoding: "utf8" }).trim();

/** One Lighthouse run of `url`; each category's score out of 100. `keepAs` names the report's copy. */
function lighthouse(url: string, cookie: string | undefined, out: string, keepAs: string): Scores {
  const report = path.join(out, "report.json");
  execFileSync(
    "npx",
    [
      "--yes",
      LIGHTHOUSE,
      url,
      "--preset=desktop",
      `--only-categories=${CATEGORIES.join(",")}`,
      "--output=json",
      `--output-path=${report}`,
      "--quiet",
      "--chrome-flags=--headless=new --no-sandbox",
      ...(cookie ? [`--extra-headers=${JSON.stringify({ Cookie: cookie })}`] : []),
    ],
    { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, CHROME_PATH: chromium }, timeout: 180_000 },
  );
  if (KEEP_REPORTS) copyFileSync(report, path.join(KEEP_REPORTS, `${keepAs}.json`));
  const categories = (JSON.parse(readFileSync(report, "utf8")) as { categories: Record<string, { score: number }> })
    .categories;
  return Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(categories[c]!.score * 100)])) as Scores;
}

async function main() {
  const startedAt = new Date();
  const buildId = ensureBuild();
  const password = randomBytes(18).toString("base64url");
  const url = await freshDatabase(DB_NAME, password);
  const client = createBaseClient(url, { poolMax: 2 });
  const org = await client.organization.create({ data: { name: "Lighthouse Org" } });
  await client.$disconnect();
  const app = await startApp(url);
  const cookie = await signIn(app.baseUrl, "admin", password);
  const pages: { page: string; path: string; signedIn: boolean }[] = [
    { page: "/console/sign-in", path: "/console/sign-in", signedIn: false },
    { page: "/console/overview", path: "/console/overview", signedIn: true },
    { page: "/console/api-keys", path: "/console/api-keys", signedIn: true },
    { page: "/console/organizations/{id}", path: `/console/organizations/${org.id}`, signedIn: true },
    { page: "/console/audit-log", path: "/console/audit-log", signedIn: true },
  ].filter((p) => !ONLY.length || ONLY.includes(p.page));
  const unknown = ONLY.filter((name) => !pages.some((p) => p.page === name));
  if (unknown.length) throw new Error(`BENCH_PAGES names no page: ${unknown.join(", ")}`);
  if (KEEP_REPORTS) mkdirSync(KEEP_REPORTS, { recursive: true });
  const out = mkdtempSync(path.join(tmpdir(), "svc-lighthouse-"));
  say(
    `Lighthouse (${LIGHTHOUSE}, desktop preset) on build ${buildId}, ${RUNS} run(s) a page, medians; ${machineLine()}`,
  );
  say(`${pad("page", 30)} ${CATEGORIES.map((c) => lpad(c, 15)).join(" ")}`);
  const results: (Scores & { page: string; runs: Scores[] })[] = [];
  try {
    for (const { page, path: at, signedIn } of pages) {
      const runs: Scores[] = [];
      for (let i = 0; i < RUNS; i++) {
        const keepAs = `${page.replace(/^\/console\//, "").replace(/[^\w-]+/g, "_")}-${i + 1}`;
        runs.push(lighthouse(`${app.baseUrl}${at}`, signedIn ? cookie : undefined, out, keepAs));
      }
      const medians = Object.fromEntries(CATEGORIES.map((c) => [c, median(runs.map((r) => r[c]))])) as Scores;
      results.push({ page, ...medians, runs });
      say(`${pad(page, 30)} ${CATEGORIES.map((c) => lpad(String(medians[c]), 15)).join(" ")}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const missed = results.flatMap((r) => CATEGORIES.filter((c) => r[c] < TARGET).map((c) => `${r.page} ${c} ${r[c]}`));
  say(missed.length ? `Under ${TARGET}: ${missed.join("; ")}` : `Every score ≥ ${TARGET}.`);
  say(`Results: ${await writeResults("lighthouse", startedAt, { build: buildId, lighthouse: LIGHTHOUSE, results })}`);
}

await runBenchmark(main, [DB_NAME]);
