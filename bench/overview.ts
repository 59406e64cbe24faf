// `npm run bench:overview`: the console overview's data function (services/overview) on a seeded
// database — BENCH_KEYS API keys (default 100,000), BENCH_ORGS organizations across the tiers, and
// usage buckets: every hour of the last 7 days for BENCH_ACTIVE_KEYS keys (2xx, and 429 for one in
// ten), as a busy platform would have. Runs the function BENCH_RUNS times after a warm-up and prints
// the server time (median, p95, max) against the 300 ms target, and each statement's plan time.
//
// Settings (environment): BENCH_DATABASE_URL, BENCH_KEYS, BENCH_ORGS, BENCH_ACTIVE_KEYS, BENCH_RUNS,
// BENCH_KEEP_DB=1.

import pg from "pg";
import { systemActor } from "@/server/auth/actor";
import { baseClient } from "@/server/db/client";
import { overview } from "@/server/services/overview/service";
import { ADMIN_URL, databaseUrl, dropDatabase, f, freshDatabase, intSetting, machineLine, median, percentile, runBenchmark, say, writeResults } from "./lib";

const DB_NAME = "svc_bench_overview";
const KEYS = intSetting("BENCH_KEYS", 100_000, 1_000, 1_000_000);
const ORGS = intSetting("BENCH_ORGS", 2_000, 1, 100_000);
const ACTIVE_KEYS = intSetting("BENCH_ACTIVE_KEYS", 2_000, 1, 100_000);
const RUNS = intSetting("BENCH_RUNS", 30, 1, 1_000);
const TARGET_MS = 300;
const TIERS = ["free", "pro", "enterprise"];

async function seed(client: pg.Client) {
  const started = performance.now();
  await client.query(
    `INSERT INTO organizations (name, subscription_tier, created_by, updated_by)
     SELECT 'bench_org_' || i, (ARRAY[${TIERS.map((t) => `'${t}'`).join(", ")}])[1 + i % ${TIERS.length}], 'system:bench', 'system:bench'
     FROM generate_series(1, $1) i`,
    [ORGS],
  );
  await client.query(
    `INSERT INTO users (username, created_by, updated_by) SELECT 'bench_user_' || i, 'system:bench', 'system:bench' FROM generate_series(1, 1000) i`,
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
  await client.query("VACUUM ANALYZE");
  const counts = (await client.query<{ keys: string; usage: string }>("SELECT (SELECT count(*) FROM api_keys) AS keys, (SELECT count(*) FROM api_key_usage) AS usage")).rows[0];
  say(`Seeded ${ORGS.toLocaleString("en")} organizations, 1,001 users, ${Number(counts?.keys).toLocaleString("en")} keys, ${Number(counts?.usage).toLocaleString("en")} usage buckets in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
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
    const actor = systemActor("bench");
    // Warm-up: connections opened, statements prepared.
    for (let i = 0; i < 3; i++) await overview(actor);
    const times: number[] = [];
    let last;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      last = await overview(actor);
      times.push(performance.now() - t);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const result = { median: median(times), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN };
    say();
    say(`svc overview benchmark — ${new Date().toISOString()}`);
    say(machineLine());
    say(`  ${RUNS} calls of overview() in process, after 3 warm-up calls; its five statements run concurrently on the pool`);
    say(`  server time: median ${f(result.median)} ms, p95 ${f(result.p95)} ms, max ${f(result.max)} ms (target < ${TARGET_MS} ms) ${result.p95 < TARGET_MS ? "PASS" : "FAIL"}`);
    say(`  answer: ${last?.active_keys} active keys, ${last?.keys_expiring_this_week} expiring this week, ${last?.requests_per_hour.length} hour×outcome points, ${last?.most_refused_keys.length} most refused keys`);
    const file = await writeResults("overview", startedAt, { startedAt: startedAt.toISOString(), settings: { keys: KEYS, orgs: ORGS, activeKeys: ACTIVE_KEYS, runs: RUNS }, times, result });
    say(`Results: ${file}`);
  } finally {
    await client.end();
    await baseClient().$disconnect();
  }
}

await runBenchmark(main, () => dropDatabase(DB_NAME), `dropping ${DB_NAME}`);
