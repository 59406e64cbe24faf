// `npm run bench:audit-history`: the audit trail's list as the trail grows. A trail of 1,000 events,
// then of BENCH_EVENTS (default 1,000,000), each spread over the same 289 days (ids UUIDv7 of their
// time, as the app writes them), across 1,000 actors, 100 organizations, 40 actions and 50,000
// targets. At each size every filter of the list is called BENCH_RUNS times in process through
// invoke() (the operation both doors go through: query parsing, authorization, the service) as a
// signed-in sys_admin, one page of 50: none, an action, an actor, a target, a one-month time range,
// a filter matching nothing, an organization's action, and a page deep in the list (by its cursor).
// Targets per filter: p50 at the large size within 3× its p50 at 1,000 events, and p95 under 200 ms.
//
// Settings (environment): BENCH_DATABASE_URL (server on which svc_bench_audit_history is created and
// dropped), BENCH_EVENTS, BENCH_RUNS, BENCH_KEEP_DB=1.

import pg from "pg";
import type { SessionActor } from "@/server/auth/actor";
import { loadGrants } from "@/server/auth/grants";
// Aliased: the name of a React hook, which lint rules would hold it to.
import { createBaseClient, useBaseClient as makeProcessWide } from "@/server/db/client";
import { dataLayer } from "@/server/db/data-layer";
import { OPERATION_GROUPS } from "@/server/operations";
import { invoke } from "@/server/operations/invoke";
import type { AnyOperation } from "@/server/operations/operation";
import {
  dropDatabase,
  f,
  freshDatabase,
  intSetting,
  lpad,
  machineLine,
  median,
  pad,
  percentile,
  runBenchmark,
  say,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_audit_history";
const EVENTS = intSetting("BENCH_EVENTS", 1_000_000, 10_000, 10_000_000);
const RUNS = intSetting("BENCH_RUNS", 50, 5, 10_000);
const SMALL = 1_000;
const DAYS = 289;
const ACTORS = 1_000;
const ORGS = 100;
const ACTIONS = 40;
const TARGETS = 50_000;
const TARGET_GROWTH = 3;
const TARGET_P95_MS = 200;

/**
 * Events number `from` to `to` - 1 of a trail of `total`, event i at day i / total of the 289
 * (so a trail of any size spans the same days), with a UUIDv7 id of its own time.
 */
async function insertEvents(client: pg.Client, from: number, to: number, total: number) {
  await client.query(
    `WITH actors AS (SELECT array_agg(id ORDER BY username) AS ids FROM users WHERE username LIKE 'bench_actor_%'),
          orgs AS (SELECT array_agg(id ORDER BY name) AS ids FROM organizations WHERE name LIKE 'bench_org_%'),
          events AS (
            SELECT i, now() - make_interval(secs => ${DAYS} * 86400 * (1 - i::float8 / $3)) AS at
            FROM generate_series($1::bigint, $2::bigint - 1) i)
     INSERT INTO audit_events (id, occurred_at, actor_user_id, actor_auth, action, target_type, target_id, org_id,
                               request_id, ip, user_agent, changes, outcome)
     SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || substr(md5(i::text), 1, 3)
               || to_hex(8 + i % 4) || substr(md5(i::text), 4, 15))::uuid,
            at, actors.ids[1 + (i * 7919) % ${ACTORS}], 'session', 'bench.action.' || (i % ${ACTIONS}),
            'organization', 'target-' || (i * 31) % ${TARGETS}, orgs.ids[1 + i % ${ORGS}],
            'req-' || i, '127.0.0.1', 'bench', '{"description": {"old": "a", "new": "b"}}'::jsonb,
            CASE WHEN i % 50 = 0 THEN 'denied' ELSE 'success' END
     FROM events, actors, orgs`,
    [from, to, total],
  );
  await client.query("VACUUM ANALYZE audit_events");
}

interface Filter {
  name: string;
  org?: boolean;
  query: (context: { actorId: string; deepCursor: string; now: number }) => Record<string, string>;
}

const DAY_MS = 86_400_000;
const FILTERS: Filter[] = [
  { name: "none", query: () => ({}) },
  { name: "action", query: () => ({ action: "bench.action.7" }) },
  { name: "actor", query: ({ actorId }) => ({ actor_user_id: actorId }) },
  { name: "target", query: () => ({ target_id: "target-93" }) },
  {
    name: "one month (since, until)",
    query: ({ now }) => ({
      since: new Date(now - 100 * DAY_MS).toISOString(),
      until: new Date(now - 70 * DAY_MS).toISOString(),
    }),
  },
  { name: "action matching nothing", query: () => ({ action: "bench.action.none" }) },
  { name: "organization's, an action", org: true, query: () => ({ action: "bench.action.7" }) },
  { name: "deep page (cursor)", query: ({ deepCursor }) => ({ cursor: deepCursor }) },
];

async function main() {
  const startedAt = new Date();
  say(`Audit trail's list at ${SMALL.toLocaleString("en")} and ${EVENTS.toLocaleString("en")} events…`);
  const url = await freshDatabase(DB_NAME);
  const prisma = createBaseClient(url, { poolMax: 4 });
  makeProcessWide(prisma);
  const client = new pg.Client({ connectionString: url });
  // Dropping the database at the end (or after a failure) ends this connection: not an error.
  client.on("error", () => undefined);
  await client.connect();
  await client.query(
    `INSERT INTO users (username, display_name, created_by, updated_by)
     SELECT 'bench_actor_' || lpad(i::text, 4, '0'), 'Actor ' || i, 'system:bench', 'system:bench' FROM generate_series(1, ${ACTORS}) i;
     INSERT INTO organizations (name, created_by, updated_by)
     SELECT 'bench_org_' || lpad(i::text, 3, '0'), 'system:bench', 'system:bench' FROM generate_series(1, ${ORGS}) i;`,
  );
  const admin = await prisma.user.findFirstOrThrow({ where: { username: "admin" } });
  const actor: SessionActor = {
    kind: "session",
    userId: admin.id,
    username: admin.username,
    displayName: null,
    grants: await loadGrants(dataLayer("bench"), admin.id),
  };
  const { list, listInOrganization } = OPERATION_GROUPS.auditEvents;
  const someActor = (await client.query<{ id: string }>("SELECT id FROM users WHERE username = 'bench_actor_0004'"))
    .rows[0]?.id as string;
  const someOrg = (await client.query<{ id: string }>("SELECT id FROM organizations WHERE name = 'bench_org_008'"))
    .rows[0]?.id as string;

  const measureAt = async (size: number) => {
    // The cursor of the event half-way down the list: the next page is deep in the trail.
    const middle = await client.query<{ id: string }>(
      "SELECT id FROM audit_events ORDER BY occurred_at DESC, id DESC OFFSET $1 LIMIT 1",
      [Math.floor(size / 2)],
    );
    const context = {
      actorId: someActor,
      deepCursor: Buffer.from(JSON.stringify(middle.rows[0]?.id)).toString("base64url"),
      now: Date.now(),
    };
    const figures: Record<string, { p50: number; p95: number; items: number }> = {};
    for (const filter of FILTERS) {
      const operation = (filter.org ? listInOrganization : list) as AnyOperation;
      const raw = {
        params: filter.org ? { org_id: someOrg } : {},
        query: filter.query(context),
        body: () => undefined,
      };
      let items = 0;
      const times: number[] = [];
      for (let i = 0; i < RUNS + 5; i++) {
        const started = performance.now();
        const page = (await invoke(operation, actor, raw)) as { data: unknown[] };
        const ms = performance.now() - started;
        if (i >= 5) times.push(ms);
        items = page.data.length;
      }
      times.sort((x, y) => x - y);
      figures[filter.name] = { p50: median(times), p95: percentile(times, 95), items };
    }
    return figures;
  };

  await insertEvents(client, 0, SMALL, SMALL);
  const small = await measureAt(SMALL);
  const started = performance.now();
  // The large trail: the same days, filled in (its own events, the small trail's dropped).
  await client.query("TRUNCATE audit_events");
  for (let from = 0; from < EVENTS; from += 250_000)
    await insertEvents(client, from, Math.min(EVENTS, from + 250_000), EVENTS);
  say(`Inserted ${EVENTS.toLocaleString("en")} events in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  const large = await measureAt(EVENTS);

  say();
  say(`svc audit-history benchmark — ${new Date().toISOString()}`);
  say(machineLine());
  say(`  ${RUNS} calls per filter and size through invoke() in process, after 5 to warm up; a page of 50; ms`);
  say(
    `${pad("filter", 28)}${lpad(`${SMALL.toLocaleString("en")} p50`, 11)}${lpad("p95", 8)}${lpad(`${EVENTS.toLocaleString("en")} p50`, 15)}${lpad("p95", 8)}${lpad("growth", 8)}${lpad("items", 7)}  target ≤ ${TARGET_GROWTH}× and p95 < ${TARGET_P95_MS} ms`,
  );
  const rows = FILTERS.map(({ name }) => {
    const s = small[name] as { p50: number; p95: number };
    const l = large[name] as { p50: number; p95: number; items: number };
    const growth = l.p50 / s.p50;
    const met = growth <= TARGET_GROWTH && l.p95 < TARGET_P95_MS;
    say(
      `${pad(name, 28)}${lpad(f(s.p50), 11)}${lpad(f(s.p95), 8)}${lpad(f(l.p50), 15)}${lpad(f(l.p95), 8)}${lpad(`${f(growth)}×`, 8)}${lpad(String(l.items), 7)}  ${met ? "met" : "MISSED"}`,
    );
    return { filter: name, small: s, large: l, growth, met };
  });
  say();
  say(`Results: ${await writeResults("audit-history", startedAt, { events: EVENTS, runs: RUNS, rows })}`);
  await client.end();
  await prisma.$disconnect();
}

await runBenchmark(main, () => dropDatabase(DB_NAME), DB_NAME);
process.exit(0);
