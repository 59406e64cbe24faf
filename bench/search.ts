// `npm run bench:search`: the `q` search of organizations and users at 200,000 rows each, on a real
// PostgreSQL and on the embedded database, for searches whose matches lie in different places (all
// new, all old, many, few, none), since that is what decides its cost. Target p50 ≤ 20 ms each.
// The searches and settings: docs/benchmarks.md#search; why they differ: docs/decisions/012-trigram-search.md.

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbedded } from "@/server/db/embedded";
import { OPERATION_GROUPS } from "@/server/operations";
import { invoke } from "@/server/operations/invoke";
import type { AnyOperation } from "@/server/operations/operation";
import {
  f,
  freshDatabase,
  intSetting,
  lpad,
  median,
  migrateAndSeed,
  pad,
  percentile,
  reportHeader,
  runBenchmark,
  say,
  signedInClient,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_search";
const ROWS = intSetting("BENCH_ROWS", 200_000, 1_000, 2_000_000);
const RUNS = intSetting("BENCH_RUNS", 30, 5, 10_000);
const EMBEDDED = process.env.BENCH_EMBEDDED !== "0";
const TARGET_P50_MS = 20;
const WORDS = [
  "Northwind",
  "Contoso",
  "Fabrikam",
  "Initech",
  "Globex",
  "Umbrella",
  "Hooli",
  "Vandelay",
  "Wonka",
  "Acme",
];
const WORDS_SQL = `ARRAY[${WORDS.map((w) => `'${w}'`).join(", ")}]`;

/** ROWS organizations and ROWS users, shaped as real ones. */
async function fill(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The app's role stops statements after 3 s in its database (decision 040); these run longer.
    await client.query("SET statement_timeout = 0");
    const started = performance.now();
    for (let from = 1; from <= ROWS; from += 50_000) {
      const to = Math.min(ROWS, from + 49_999);
      await client.query(
        `INSERT INTO organizations (name, display_name, domain, contact_email, created_by, updated_by)
         SELECT 'org-' || i || '-' || substr(md5(i::text), 1, 6),
                (${WORDS_SQL})[1 + i % 10] || ' ' || initcap(substr(md5(i::text), 7, 8)) || CASE WHEN i % 2 = 0 THEN ' Ltd' ELSE '' END,
                'org' || i || '.example.com', 'admin@org' || i || '.example.com', 'system:bench', 'system:bench'
         FROM generate_series($1::int, $2::int) i`,
        [from, to],
      );
      await client.query(
        `INSERT INTO users (username, display_name, email, created_by, updated_by)
         SELECT 'user' || i || '_' || substr(md5(i::text), 1, 4),
                initcap(substr(md5('f' || i), 1, 7)) || ' ' || (${WORDS_SQL})[1 + i % 10] || 'son',
                'user' || i || '@org' || (i % 5000) || '.example.com', 'system:bench', 'system:bench'
         FROM generate_series($1::int, $2::int) i`,
        [from, to],
      );
    }
    await client.query("VACUUM ANALYZE organizations");
    await client.query("VACUUM ANALYZE users");
    say(
      `  ${ROWS.toLocaleString("en")} organizations and users in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await client.end();
  }
}

const LISTS = {
  organizations: { table: "organizations", columns: ["name", "display_name", "domain"] },
  users: { table: "users", columns: ["username", "display_name", "email"] },
} as const;

const SEARCHES: { name: string; list: keyof typeof LISTS; q: string }[] = [
  { name: "organizations: one name", list: "organizations", q: "org-123457-" },
  { name: "organizations: a word (1 in 10)", list: "organizations", q: "hooli" },
  { name: "organizations: every row", list: "organizations", q: "example.com" },
  { name: "organizations: all old", list: "organizations", q: "org-77" },
  { name: "organizations: many, all old", list: "organizations", q: "org-3" },
  { name: "organizations: few, most new", list: "organizations", q: "org-19999" },
  { name: "organizations: nothing", list: "organizations", q: "no-such-organization" },
  { name: "organizations: two letters, nothing", list: "organizations", q: "qz" },
  { name: "users: one username", list: "users", q: "user123457_" },
  { name: "users: a word (1 in 10)", list: "users", q: "vandelayson" },
  { name: "users: every row", list: "users", q: "example.com" },
  { name: "users: all old", list: "users", q: "user77" },
  { name: "users: many, all old", list: "users", q: "user3" },
  { name: "users: few, most new", list: "users", q: "user19999" },
  { name: "users: nothing", list: "users", q: "no-such-user" },
  { name: "users: two letters, nothing", list: "users", q: "qz" },
];

/**
 * How many rows each search matches, and how many rows newer than its newest match there are (the
 * rows a walk of the list's order reads before the first one). For the searches above only: their
 * text holds no LIKE wildcard; two letters match where a value or a word of it begins.
 */
async function shapes(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET statement_timeout = 0");
    const shape: Record<string, { matches: number; newestBack: number | null }> = {};
    for (const { name, list, q } of SEARCHES) {
      const { table, columns } = LISTS[list];
      const patterns = q.length >= 3 ? [`%${q}%`] : [`${q}%`, `% ${q}%`];
      const match = columns.flatMap((c) => patterns.map((_, i) => `${c} ILIKE $${i + 1}`)).join(" OR ");
      const { rows } = await client.query<{ matches: string; back: string | null }>(
        `WITH m AS (SELECT count(*) AS matches,
                           (SELECT id FROM ${table} WHERE NOT is_deleted AND (${match}) ORDER BY id DESC LIMIT 1) AS newest
                    FROM ${table} WHERE NOT is_deleted AND (${match}))
         SELECT matches, CASE WHEN newest IS NULL THEN NULL ELSE (SELECT count(*) FROM ${table} WHERE id > newest) END AS back FROM m`,
        patterns,
      );
      shape[name] = {
        matches: Number(rows[0]?.matches),
        newestBack: rows[0]?.back == null ? null : Number(rows[0].back),
      };
    }
    return shape;
  } finally {
    await client.end();
  }
}

/** Every search RUNS times on the database at `url` (made process-wide meanwhile). */
async function measure(url: string, embedded: boolean) {
  // As the app reaches each: the embedded database without named statements (npm start).
  const { client: prisma, actor } = await signedInClient(
    url,
    embedded ? { poolMax: 4, preparedStatements: false } : { poolMax: 4 },
  );
  try {
    const figures: Record<string, { p50: number; p95: number; items: number }> = {};
    for (const search of SEARCHES) {
      const operation = OPERATION_GROUPS[search.list].list as AnyOperation;
      const raw = { params: {}, query: { q: search.q }, body: () => undefined };
      const times: number[] = [];
      let items = 0;
      for (let i = 0; i < RUNS + 3; i++) {
        const started = performance.now();
        const page = (await invoke(operation, actor, raw)) as { data: unknown[] };
        if (i >= 3) times.push(performance.now() - started);
        items = page.data.length;
      }
      times.sort((x, y) => x - y);
      figures[search.name] = { p50: median(times), p95: percentile(times, 95), items };
    }
    return figures;
  } finally {
    await prisma.$disconnect();
  }
}

let embeddedDir: string | undefined;

async function main() {
  const startedAt = new Date();
  say(`Search with ${ROWS.toLocaleString("en")} organizations and users: PostgreSQL…`);
  const url = await freshDatabase(DB_NAME);
  await fill(url);
  const shape = await shapes(url);
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = { PostgreSQL: await measure(url, false) };

  if (EMBEDDED) {
    say("The embedded database (PGlite)…");
    embeddedDir = await mkdtemp(path.join(os.tmpdir(), "svc-bench-search-"));
    const embedded = await startEmbedded(embeddedDir);
    try {
      await migrateAndSeed(embedded.url);
      await fill(embedded.url);
      results["embedded (PGlite)"] = await measure(embedded.url, true);
    } finally {
      await embedded.stop();
    }
  }

  reportHeader("search");
  say(`  ${RUNS} calls per search through invoke() in process, after 3 to warm up; a page of 50; ms`);
  const databases = Object.keys(results);
  say(
    `${pad("search", 38)}${lpad("matches", 9)}${lpad("newest back", 13)}${databases.map((d) => lpad(`${d} p50`, 26) + lpad("p95", 8)).join("")}${lpad("items", 7)}  target p50 ≤ ${TARGET_P50_MS} ms`,
  );
  const rows = SEARCHES.map(({ name, q }) => {
    const per = databases.map((d) => results[d]?.[name] as { p50: number; p95: number; items: number });
    const met = per.every((x) => x.p50 <= TARGET_P50_MS);
    const { matches, newestBack } = shape[name] as { matches: number; newestBack: number | null };
    say(
      `${pad(name, 38)}${lpad(matches.toLocaleString("en"), 9)}${lpad(newestBack === null ? "—" : newestBack.toLocaleString("en"), 13)}${per.map((x) => lpad(f(x.p50), 26) + lpad(f(x.p95), 8)).join("")}${lpad(String(per[0]?.items), 7)}  ${met ? "met" : "MISSED"}`,
    );
    return {
      search: name,
      q,
      matches,
      newest_back: newestBack,
      ...Object.fromEntries(databases.map((d, i) => [d, per[i]])),
      met,
    };
  });
  say();
  say(`Results: ${await writeResults("search", startedAt, { rows: ROWS, runs: RUNS, results: rows })}`);
}

await runBenchmark(main, [DB_NAME], async () => {
  if (embeddedDir) await rm(embeddedDir, { recursive: true, force: true });
});
