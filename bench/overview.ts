// `npm run bench:overview`: the server time of the console's overview (its data function, then the
// whole page) on a database seeded as a busy platform's, against a 300 ms target. Rows are filled
// as real ones are, since that sets how many pages a table takes and so how the planner reads it.
// Seed sizes and settings: docs/benchmarks.md#console-overview.

import { randomBytes } from "node:crypto";
import pg from "pg";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { hashPassword } from "@/server/auth/passwords";
import { baseClient } from "@/server/db/client";
import { overview } from "@/server/services/overview/service";
import {
  ADMIN_URL,
  databaseUrl,
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  median,
  percentile,
  reportHeader,
  runBenchmark,
  say,
  signIn,
  startApp,
  stopApp,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_overview";
const KEYS = intSetting("BENCH_KEYS", 100_000, 1_000, 1_000_000);
const ORGS = intSetting("BENCH_ORGS", 2_000, 1, 100_000);
const EVENTS = intSetting("BENCH_EVENTS", 100_000, 0, 10_000_000);
const ACTIVE_KEYS = intSetting("BENCH_ACTIVE_KEYS", 2_000, 1, 100_000);
const RUNS = intSetting("BENCH_RUNS", 30, 1, 1_000);
const PAGE_RUNS = intSetting("BENCH_PAGE_RUNS", 20, 1, 1_000);
const WARM_UP = 3;
const TARGET_MS = 300;
const TIERS = ["free", "pro", "enterprise"];

async function seed(client: pg.Client) {
  const started = performance.now();
  await client.query(
    `INSERT INTO organizations (name, display_name, subscription_tier, contact_email, website, created_by, updated_by)
     SELECT 'bench_org_' || i, 'Bench organization ' || i, (ARRAY[${TIERS.map((t) => `'${t}'`).join(", ")}])[1 + i % ${TIERS.length}],
            'admin@org' || i || '.example.com', 'https://org' || i || '.example.com', 'system:bench', 'system:bench'
     FROM generate_series(1, $1) i`,
    [ORGS],
  );
  await client.query(
    `INSERT INTO users (username, email, display_name, password_hash, created_by, updated_by)
     SELECT 'bench_user_' || i, 'bench_user_' || i || '@example.com', 'Bench user ' || i,
            '$argon2id$v=19$m=19456,t=2,p=1$' || md5(i::text) || '$' || md5((i + 1)::text) || md5((i + 2)::text), 'system:bench', 'system:bench'
     FROM generate_series(1, 1000) i`,
  );
  // Keys: a third without expiry, the rest expiring over the next year (some this week), one in
  // twenty revoked.
  await client.query(
    `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, expires_at, is_active, updated_by)
     SELECT u.id, 'bench key ' || i, md5(i::text) || md5((i + 1)::text), 'cdk_' || substr(md5(i::text), 1, 8), '["svc:org:read"]',
            CASE WHEN i % 3 = 0 THEN NULL ELSE now() + make_interval(hours => i % 8760) END, i % 20 <> 0, 'system:bench'
     FROM generate_series(1, $1) i
     JOIN LATERAL (SELECT id FROM users WHERE username = 'bench_user_' || (1 + i % 1000)) u ON true`,
    [KEYS],
  );
  await client.query(
    `INSERT INTO api_key_usage (key_id, hour, outcome, count)
     SELECT k.id, date_trunc('hour', now()) - make_interval(hours => h), o.outcome, o.base + (h % 7)
     FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM api_keys ORDER BY id LIMIT $1) k
     CROSS JOIN generate_series(0, 167) h
     CROSS JOIN LATERAL (VALUES ('2xx', 40), ('429', 3)) o(outcome, base)
     WHERE o.outcome = '2xx' OR k.n % 10 = 0`,
    [ACTIVE_KEYS],
  );
  await client.query(
    `INSERT INTO api_key_usage_totals (hour, outcome, count) SELECT hour, outcome, sum(count) FROM api_key_usage GROUP BY 1, 2`,
  );
  await client.query(
    `INSERT INTO api_key_usage_totals (hour, outcome, count)
     SELECT date_trunc('hour', now()) - make_interval(hours => h), o.outcome, o.count
     FROM generate_series(168, 90 * 24 - 1) h CROSS JOIN (VALUES ('2xx', 80000), ('429', 600)) o(outcome, count)`,
  );
  // The audit trail: changes by the bench's users over the last 30 days, in time order.
  await client.query(
    `INSERT INTO audit_events (occurred_at, actor_user_id, actor_auth, action, target_type, target_id, outcome)
     SELECT now() - make_interval(secs => ($1 - i) * 2592000.0 / $1), u.id, 'session', 'organizations.update', 'organization', 'bench_org_' || i, 'success'
     FROM generate_series(1, $1) i
     JOIN LATERAL (SELECT id FROM users WHERE username = 'bench_user_' || (1 + i % 1000)) u ON true`,
    [EVENTS],
  );
  await client.query("VACUUM ANALYZE");
  const counts = (
    await client.query<{ keys: string; usage: string }>(
      "SELECT (SELECT count(*) FROM api_keys) AS keys, (SELECT count(*) FROM api_key_usage) AS usage",
    )
  ).rows[0];
  say(
    `Seeded ${ORGS.toLocaleString("en")} organizations, 1,001 users, ${Number(counts?.keys).toLocaleString("en")} keys, ${Number(counts?.usage).toLocaleString("en")} usage buckets, ${EVENTS.toLocaleString("en")} audit events in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
}

/** One request for the overview page, timed from sending it to its last byte (ms). */
async function timePage(baseUrl: string, cookie: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/console/overview`, { headers: { cookie }, redirect: "manual" });
  const html = await response.text();
  const elapsed = performance.now() - started;
  // The figures render only once the overview's data is in: a page without them is no measurement.
  if (response.status !== 200 || !html.includes("Active API keys"))
    throw new Error(`/console/overview answered ${response.status} without its figures`);
  return elapsed;
}

async function main() {
  const startedAt = new Date();
  process.env.DATABASE_URL = databaseUrl(DB_NAME);
  say(`Creating ${DB_NAME} on ${new URL(ADMIN_URL).host}, migrating, seeding…`);
  const url = await freshDatabase(DB_NAME);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await seed(client);
    const ctx = readContext(systemActor("bench"));
    // Warm-up: connections opened, statements prepared.
    for (let i = 0; i < WARM_UP; i++) await overview(ctx);
    const times: number[] = [];
    let last;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      last = await overview(ctx);
      times.push(performance.now() - t);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const result = { median: median(times), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN };

    ensureBuild();
    const password = randomBytes(18).toString("base64url");
    await client.query("UPDATE users SET password_hash = $1 WHERE username = 'admin'", [await hashPassword(password)]);
    const app = await startApp(url);
    const cookie = await signIn(app.baseUrl, "admin", password);
    for (let i = 0; i < WARM_UP; i++) await timePage(app.baseUrl, cookie);
    const pageTimes: number[] = [];
    for (let i = 0; i < PAGE_RUNS; i++) pageTimes.push(await timePage(app.baseUrl, cookie));
    await stopApp();
    const pageSorted = [...pageTimes].sort((a, b) => a - b);
    const page = { p50: percentile(pageSorted, 50), max: pageSorted[pageSorted.length - 1] ?? NaN };

    reportHeader("overview");
    say(
      `  data function: ${RUNS} calls of overview() in process, after ${WARM_UP} warm-up calls; its six statements run concurrently on the pool`,
    );
    say(
      `    server time: median ${f(result.median)} ms, p95 ${f(result.p95)} ms, max ${f(result.max)} ms (target < ${TARGET_MS} ms) ${result.p95 < TARGET_MS ? "PASS" : "FAIL"}`,
    );
    say(
      `  page: ${PAGE_RUNS} sequential GET /console/overview from 127.0.0.1 as a signed-in sys_admin, production build, after ${WARM_UP} warm-up requests`,
    );
    say(
      `    server time to the last byte: p50 ${f(page.p50)} ms, max ${f(page.max)} ms (target < ${TARGET_MS} ms) ${page.max < TARGET_MS ? "PASS" : "FAIL"}`,
    );
    say(
      `  answer: ${last?.active_keys} active keys, ${last?.keys_expiring_this_week} expiring this week, ${last?.requests_per_hour.length} hour×outcome points, ${last?.most_refused_keys.length} most refused keys, ${last?.latest_events.length} latest events`,
    );
    const file = await writeResults("overview", startedAt, {
      startedAt: startedAt.toISOString(),
      settings: { keys: KEYS, orgs: ORGS, events: EVENTS, activeKeys: ACTIVE_KEYS, runs: RUNS, pageRuns: PAGE_RUNS },
      times,
      result,
      pageTimes,
      page,
    });
    say(`Results: ${file}`);
  } finally {
    await client.end();
    await baseClient().$disconnect();
  }
}

await runBenchmark(main, [DB_NAME]);
