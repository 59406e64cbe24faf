// `npm run bench:scim`: how fast a directory pages through an organization of 10,000 provisioned
// people over HTTP, the way Okta and Entra ID import: every page of 100 in turn, then the filters
// they send to find one person (userName, externalId, the work email), and a prefix search. Each
// figure is the time from request to whole answer, measured from a separate client. Target: a
// page under 50 ms at the 99th percentile (docs/benchmarks.md#directory-sync).

import { SCIM_TOKEN_PREFIX } from "@/lib/scim";
import { generateToken } from "@/server/auth/api-key-format";
import { createBaseClient } from "@/server/db/client";
import { f, freshDatabase, intSetting, latencies, lpad, pad, runBenchmark, say, startApp, writeResults } from "./lib";

const DB_NAME = "svc_bench_scim";
const USERS = intSetting("BENCH_USERS", 10_000, 100, 1_000_000);
const ROUNDS = intSetting("BENCH_ROUNDS", 3, 1, 100);
const LOOKUPS = intSetting("BENCH_LOOKUPS", 200, 10, 100_000);
const TARGET_MS = 50;

/** 10,000 people of one organization, provisioned as a directory would have, in a few statements. */
async function seedOrganization(url: string) {
  const client = createBaseClient(url, { poolMax: 2 });
  const org = await client.organization.create({ data: { name: "bench directory" } });
  const token = generateToken(SCIM_TOKEN_PREFIX, 13);
  await client.scimToken.create({
    data: { org_id: org.id, name: "bench", prefix: token.prefix, token_hash: token.hash },
  });
  await client.$executeRawUnsafe(
    `WITH made AS (
       INSERT INTO users (username, email, email_verified_at, display_name)
       SELECT 'person' || n || '@bench.test', 'person' || n || '@bench.test', now(), 'Person ' || n
       FROM generate_series(1, $1) AS n RETURNING id, username
     ), joined AS (
       INSERT INTO user_org_memberships (user_id, org_id) SELECT id, $2::uuid FROM made
     )
     INSERT INTO scim_users (org_id, user_id, user_name, external_id, given_name, family_name, email)
     SELECT $2::uuid, id, username, 'ext-' || split_part(username, '@', 1), 'Person', split_part(username, '@', 1), username
     FROM made`,
    USERS,
    org.id,
  );
  await client.$executeRawUnsafe("ANALYZE scim_users");
  await client.$disconnect();
  return token.raw;
}

async function main() {
  const startedAt = new Date();
  say(`Directory sync: ${USERS.toLocaleString("en")} provisioned people, pages of 100 over HTTP, ${ROUNDS} rounds.`);
  const url = await freshDatabase(DB_NAME);
  const token = await seedOrganization(url);
  const app = await startApp(url);
  const get = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${app.baseUrl}/api/scim/v2${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { totalResults?: number; Resources?: unknown[] };
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, body };
  };

  // Warm-up: statements prepared, the plans cached.
  for (let i = 0; i < 20; i++) await get(`/Users?startIndex=${1 + i * 100}&count=100`);

  const pages: number[] = [];
  for (let round = 0; round < ROUNDS; round++)
    for (let start = 1; start <= USERS; start += 100) {
      const { ms, body } = await get(`/Users?startIndex=${start}&count=100`);
      if (body.Resources?.length !== Math.min(100, USERS - start + 1)) throw new Error(`page at ${start} is short`);
      pages.push(ms);
    }

  const pick = () => 1 + Math.floor(Math.random() * USERS);
  const filters: Record<string, () => string> = {
    'userName eq "…"': () => `userName eq "person${pick()}@bench.test"`,
    'externalId eq "…"': () => `externalId eq "ext-person${pick()}"`,
    'emails[type eq "work"].value eq "…"': () => `emails[type eq "work"].value eq "person${pick()}@bench.test"`,
    'userName sw "person12"': () => `userName sw "person12"`,
  };
  const lookups: Record<string, number[]> = {};
  for (const [name, filter] of Object.entries(filters)) {
    lookups[name] = [];
    for (let i = 0; i < LOOKUPS; i++)
      lookups[name].push((await get(`/Users?count=100&filter=${encodeURIComponent(filter())}`)).ms);
  }

  const rows = [
    ["every page of 100, in turn", latencies(pages)],
    ...Object.entries(lookups).map(([name, samples]) => [`filter ${name}`, latencies(samples)] as const),
  ] as const;
  say();
  say(
    `${pad("request (ms)", 44)}${lpad("p50", 8)}${lpad("p90", 8)}${lpad("p99", 8)}${lpad("max", 8)}  target p99 < ${TARGET_MS}`,
  );
  for (const [name, l] of rows)
    say(
      `${pad(name, 44)}${lpad(f(l.p50), 8)}${lpad(f(l.p90), 8)}${lpad(f(l.p99), 8)}${lpad(f(l.max), 8)}  ${l.p99 < TARGET_MS ? "met" : "MISSED"}`,
    );
  say();
  say(
    `Results: ${await writeResults("scim", startedAt, { users: USERS, rounds: ROUNDS, lookups: LOOKUPS, target_ms: TARGET_MS, rows: Object.fromEntries(rows) })}`,
  );
}

await runBenchmark(main, [DB_NAME]);
