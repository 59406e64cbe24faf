// `npm run bench:messages`: whether reading one page of a conversation's history stays fast as the
// messages table grows to a million rows, on the production build and a real PostgreSQL. Its data
// (past months' partitions, conversations, messages made by PostgreSQL) is bench/messages-data.ts.
// What it measures, its targets and settings: docs/benchmarks.md#message-history.

import http from "node:http";
import pg from "pg";
import { historyQuery } from "@/server/services/conversations/history-query";
import { cpuMs } from "./cpu-time";
import {
  ADMIN_URL,
  appLogLines,
  databaseUrl,
  DIST_DIR,
  ensureBuild,
  f,
  freshDatabase,
  latencies,
  lpad,
  machine,
  pad,
  reportHeader,
  runBenchmark,
  say,
  startApp,
  stopApp,
  writeResults,
} from "./lib";
import {
  BATCH,
  CONTROL_REQUESTS,
  CONVERSATIONS,
  DB_NAME,
  DB_ONLY_QUERIES,
  type Fixture,
  INTENT_SHARE,
  MONTHS,
  PAGE,
  PROBE_AGE_DAYS,
  PROBE_MESSAGES,
  REQUESTS,
  STAGES,
  TARGET_P99_MS,
  TARGET_RATIO,
  type TableFacts,
  WARMUP_REQUESTS,
  describePlan,
  explain,
  loadMessages,
  loadProbe,
  pools,
  setup,
  tableFacts,
} from "./messages-data";

// ---------------------------------------------------------------------------------------------
// Measuring

interface HistoryPage {
  data: { id: string; role: string; created_at: string }[];
  next_cursor: string | null;
}

async function measureStage(fx: Fixture, db: pg.Client) {
  const started = await startApp(fx.url);
  const base = `${started.baseUrl}/api/v1/organizations/${fx.orgId}/conversations/${fx.probe.id}/messages?limit=${PAGE}`;
  const headers = { "x-api-key": fx.rawKey };
  // node:http over one kept-alive connection: the client's own work per request stays small, so
  // on a 2-core machine it takes as little as it can from the app it measures.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        })
        .on("error", reject);
    });

  // Sanity: the pages are what the history says (visible messages in (created_at, id) order).
  const expected = await db.query<{ id: string }>(
    "SELECT id FROM messages WHERE conv_id = $1 AND role <> 'intent' ORDER BY created_at, id LIMIT $2",
    [fx.probe.id, 3 * PAGE],
  );
  const ids = expected.rows.map((r) => r.id);
  const page1 = await get(base);
  if (page1.status !== 200) throw new Error(`history answered ${page1.status}: ${page1.body}\n${started.output()}`);
  const p1 = JSON.parse(page1.body) as HistoryPage;
  const p2 = JSON.parse((await get(`${base}&cursor=${p1.next_cursor}`)).body) as HistoryPage;
  if (!p2.next_cursor) throw new Error("the probe's history has fewer than three pages");
  const cursorUrl = `${base}&cursor=${p2.next_cursor}`;
  const p3 = JSON.parse((await get(cursorUrl)).body) as HistoryPage;
  const got = [...p1.data, ...p2.data, ...p3.data].map((m) => m.id);
  if (got.length !== 3 * PAGE || got.some((id, i) => id !== ids[i]))
    throw new Error("the history pages differ from the messages in (created_at, id) order");
  const lastOfPage2 = p2.data[PAGE - 1] as HistoryPage["data"][number];
  const cursor = { at: lastOfPage2.created_at, id: lastOfPage2.id };

  const urls = [base, cursorUrl];
  for (let i = 0; i < WARMUP_REQUESTS; i++) await get(urls[i % 2] as string);

  // The measured run: one client, sequential, first page and cursor page alternately.
  const all: number[] = [];
  const byKind: [number[], number[]] = [[], []];
  const statuses: Record<string, number> = {};
  const cpuBefore = cpuMs(started.pid);
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const res = await get(urls[i % 2] as string);
    const ms = performance.now() - t;
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    all.push(ms);
    byKind[i % 2]?.push(ms);
  }
  const cpuAfter = cpuMs(started.pid);

  // The app's floor on this machine: the same client on /api/health (no database work).
  const health: number[] = [];
  for (let i = 0; i < CONTROL_REQUESTS; i++) {
    const t = performance.now();
    await get(`${started.baseUrl}/api/health`);
    health.push(performance.now() - t);
  }
  agent.destroy();
  const log = appLogLines(started.output());
  await stopApp();

  // The database's share: the same query sent directly, first page and cursor page alternately.
  const dbOnly: number[] = [];
  for (let i = 0; i < DB_ONLY_QUERIES; i++) {
    const values = [fx.probe.id, fx.orgId, PAGE + 1, null, ...(i % 2 ? [cursor.at, cursor.id] : [])];
    const t = performance.now();
    await db.query({ name: `history_${i % 2}`, text: historyQuery(i % 2 === 1), values });
    dbOnly.push(performance.now() - t);
  }

  const planFirst = await explain(db, fx.orgId, fx.probe.id);
  const planCursor = await explain(db, fx.orgId, fx.probe.id, cursor);
  const planRecent = await explain(db, fx.orgId, fx.recent.id);
  const planLongest = await explain(db, fx.orgId, fx.longest.id);
  const longestMessages = Number(
    (await db.query<{ n: string }>("SELECT count(*) AS n FROM messages WHERE conv_id = $1", [fx.longest.id])).rows[0]
      ?.n ?? 0,
  );

  return {
    rest: latencies(all),
    firstPage: latencies(byKind[0]),
    cursorPage: latencies(byKind[1]),
    statuses,
    ok: (statuses["200"] ?? 0) === REQUESTS,
    appCpuUsPerRequest:
      cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000) / REQUESTS : null,
    health: latencies(health),
    dbOnly: latencies(dbOnly),
    cursor,
    plans: { first: planFirst, cursor: planCursor, recent: planRecent, longest: planLongest },
    longestMessages,
    appLog: log.slice(-5),
    appPid: started.pid,
  };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const startedAt = new Date();
  const buildId = ensureBuild();
  // Services called in-process (createApiKey) read DATABASE_URL once, on first use.
  process.env.DATABASE_URL = databaseUrl(DB_NAME);
  say(`Creating ${DB_NAME} on ${new URL(ADMIN_URL).host}, migrating, seeding…`);
  const url = await freshDatabase(DB_NAME);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const fx = await setup(db, url);
    say(
      `Setup: 1 organization, 1 member, 1 instance, ${CONVERSATIONS.toLocaleString("en")} conversations over ${MONTHS} months + the probe (started ${PROBE_AGE_DAYS} days ago, ` +
        `${PROBE_MESSAGES} messages); past-month partitions created by the bench: ${fx.pastPartitions.join(", ")}.`,
    );

    const stages: Record<string, unknown>[] = [];
    const rowsOut: {
      target: number;
      facts: TableFacts;
      loadSeconds: number;
      analyzeSeconds: number;
      m: Awaited<ReturnType<typeof measureStage>>;
    }[] = [];
    let loaded = 0;
    let totalLoad = 0;
    for (const target of STAGES) {
      const t = performance.now();
      if (loaded === 0) {
        await loadProbe(db, fx);
        loaded += PROBE_MESSAGES;
      }
      await loadMessages(db, fx, target - loaded);
      loaded = target;
      const loadSeconds = (performance.now() - t) / 1000;
      const ta = performance.now();
      await db.query("VACUUM ANALYZE messages");
      const analyzeSeconds = (performance.now() - ta) / 1000;
      totalLoad += loadSeconds + analyzeSeconds;
      const facts = await tableFacts(db, fx);
      if (facts.rows !== target) throw new Error(`expected ${target} messages, found ${facts.rows}`);
      say(
        `Stage ${target.toLocaleString("en")} messages: loaded in ${loadSeconds.toFixed(1)} s + VACUUM ANALYZE ${analyzeSeconds.toFixed(1)} s; ` +
          `${(facts.bytes / 1024 / 1024).toFixed(0)} MB with indexes; measuring ${REQUESTS} requests after ${WARMUP_REQUESTS} warm-up…`,
      );
      const m = await measureStage(fx, db);
      if (!m.ok) throw new Error(`unexpected statuses: ${JSON.stringify(m.statuses)}`);
      rowsOut.push({ target, facts, loadSeconds, analyzeSeconds, m });
      say(
        `  REST p50 ${f(m.rest.p50)} ms, p99 ${f(m.rest.p99)} ms; database alone p50 ${f(m.dbOnly.p50)} ms; ` +
          `plan (first page): ${describePlan(m.plans.first.summary, facts.partitions.length)}`,
      );
      stages.push({
        messages: target,
        loadSeconds,
        analyzeSeconds,
        table: { bytes: facts.bytes, partitions: facts.partitions, probeVisibleMessages: facts.probeVisible },
        rest: m.rest,
        firstPage: m.firstPage,
        cursorPage: m.cursorPage,
        statuses: m.statuses,
        appCpuUsPerRequest: m.appCpuUsPerRequest,
        health: m.health,
        dbOnly: m.dbOnly,
        plans: {
          first: m.plans.first.summary,
          cursor: m.plans.cursor.summary,
          recentConversation: m.plans.recent.summary,
          longestConversation: { messages: m.longestMessages, ...m.plans.longest.summary },
        },
        appLog: m.appLog,
      });
    }

    // ---- figures
    const firstStage = rowsOut[0] as (typeof rowsOut)[number];
    const lastStage = rowsOut[rowsOut.length - 1] as (typeof rowsOut)[number];
    const p99Ratio = lastStage.m.rest.p99 / firstStage.m.rest.p99;
    const p50Ratio = lastStage.m.rest.p50 / firstStage.m.rest.p50;
    const maxP99 = Math.max(...rowsOut.map((r) => r.m.rest.p99));
    const ratioPass = p99Ratio <= TARGET_RATIO;
    const p99Pass = maxP99 < TARGET_P99_MS;

    reportHeader("message-history");
    say(
      `  app: production build ${DIST_DIR} (${buildId}), one app server process per stage, LOG_LEVEL=warn, DATABASE_POOL_MAX=${process.env.DATABASE_POOL_MAX || "10 (default)"}`,
    );
    say(
      `  database: PostgreSQL ${fx.serverVersion}, ${DB_NAME}; ${CONVERSATIONS.toLocaleString("en")} conversations + probe; messages over ${MONTHS} months, ~${INTENT_SHARE * 100}% intent; ` +
        `${lastStage.facts.partitions.length} partitions at the end`,
    );
    say(
      `  probe: ${PROBE_MESSAGES} messages (${lastStage.facts.probeVisible} visible), started ${PROBE_AGE_DAYS} days ago; requests alternate the first page and the third page (by cursor), limit=${PAGE}`,
    );
    say(
      `  client: one, sequential, node:http keep-alive, 127.0.0.1; ${REQUESTS} measured requests per stage after ${WARMUP_REQUESTS} warm-up; latency in ms, response body read`,
    );
    say();
    const header =
      `${pad("messages", 11)}${lpad("load s", 8)}${lpad("MB", 6)}${lpad("p50", 8)}${lpad("p99", 8)}${lpad("mean", 8)}${lpad("max", 8)}` +
      `${lpad("1st p99", 9)}${lpad("cur p99", 9)}${lpad("db p50", 8)}${lpad("db p99", 8)}${lpad("health p50/p99", 16)}${lpad("app CPU µs", 12)}`;
    say(header);
    say("-".repeat(header.length));
    for (const r of rowsOut) {
      say(
        `${pad(r.target.toLocaleString("en"), 11)}${lpad((r.loadSeconds + r.analyzeSeconds).toFixed(1), 8)}${lpad((r.facts.bytes / 1024 / 1024).toFixed(0), 6)}` +
          `${lpad(f(r.m.rest.p50), 8)}${lpad(f(r.m.rest.p99), 8)}${lpad(f(r.m.rest.mean), 8)}${lpad(f(r.m.rest.max), 8)}` +
          `${lpad(f(r.m.firstPage.p99), 9)}${lpad(f(r.m.cursorPage.p99), 9)}${lpad(f(r.m.dbOnly.p50), 8)}${lpad(f(r.m.dbOnly.p99), 8)}` +
          `${lpad(`${f(r.m.health.p50)}/${f(r.m.health.p99)}`, 16)}${lpad(f(r.m.appCpuUsPerRequest, 0), 12)}`,
      );
    }
    say(
      `Load: ${totalLoad.toFixed(1)} s in all (INSERT … SELECT generate_series, ${BATCH.toLocaleString("en")} rows per statement, then VACUUM ANALYZE per stage).`,
    );
    say();
    const big = lastStage.target.toLocaleString("en");
    const small = firstStage.target.toLocaleString("en");
    say(
      `Ratios ${big} / ${small} messages: p99 ${p99Ratio.toFixed(3)} (target ≤ ${TARGET_RATIO}) ${ratioPass ? "PASS" : "FAIL"}; p50 ${p50Ratio.toFixed(3)}`,
    );
    say(`p99 at every stage under ${TARGET_P99_MS} ms (highest ${maxP99.toFixed(2)} ms): ${p99Pass ? "PASS" : "FAIL"}`);
    say();
    say(`Plans at ${big} messages (EXPLAIN ANALYZE, BUFFERS of the history query as listMessages sends it):`);
    const parts = lastStage.facts.partitions.length;
    say(`  first page:  ${describePlan(lastStage.m.plans.first.summary, parts)}`);
    say(`  cursor page: ${describePlan(lastStage.m.plans.cursor.summary, parts)}`);
    say(
      `  a conversation started ${((fx.t0.getTime() - fx.recent.created_at.getTime()) / 86_400_000).toFixed(1)} days ago: ${describePlan(lastStage.m.plans.recent.summary, parts)}`,
    );
    say(
      `  the longest conversation (${lastStage.m.longestMessages.toLocaleString("en")} messages), first page: ${describePlan(lastStage.m.plans.longest.summary, parts)}`,
    );
    say(
      `  rows per partition: ${lastStage.facts.partitions.map((p) => `${p.name.replace(/^messages_/, "")} ${p.rows.toLocaleString("en")}`).join(", ")}`,
    );
    say();
    say("First page, in full:");
    say(lastStage.m.plans.first.text.replace(/^/gm, "  "));
    say("Cursor page, in full:");
    say(lastStage.m.plans.cursor.text.replace(/^/gm, "  "));
    const logLines = rowsOut.flatMap((r) => r.m.appLog);
    if (logLines.length)
      say(`The app logged line(s) at warn or above; the last ones:\n${logLines.slice(-5).join("\n")}`);

    const file = await writeResults("messages", startedAt, {
      startedAt: startedAt.toISOString(),
      machine: machine(),
      settings: {
        stages: STAGES,
        conversations: CONVERSATIONS,
        months: MONTHS,
        probeMessages: PROBE_MESSAGES,
        probeAgeDays: PROBE_AGE_DAYS,
        requests: REQUESTS,
        warmupRequests: WARMUP_REQUESTS,
        batch: BATCH,
        page: PAGE,
        intentShare: INTENT_SHARE,
        logLevel: "warn",
        poolMax: process.env.DATABASE_POOL_MAX || 10,
        distDir: DIST_DIR,
      },
      buildId,
      postgres: fx.serverVersion,
      pastPartitionsCreated: fx.pastPartitions,
      targets: { p99Ratio: TARGET_RATIO, p99Ms: TARGET_P99_MS },
      ratios: { p99: p99Ratio, p50: p50Ratio, pass: ratioPass },
      p99: { max: maxP99, pass: p99Pass },
      totalLoadSeconds: totalLoad,
      stages,
      plansAtLargest: {
        first: lastStage.m.plans.first.text,
        cursor: lastStage.m.plans.cursor.text,
        recent: lastStage.m.plans.recent.text,
        longest: lastStage.m.plans.longest.text,
      },
    });
    say(`Results: ${file}`);
  } finally {
    await db.end();
  }
}

async function cleanup(): Promise<void> {
  // The services' own pool (the API key was issued in-process), if it was opened.
  if (pools.servicesUsed) {
    const { baseClient } = await import("@/server/db/client");
    await baseClient()
      .$disconnect()
      .catch(() => undefined);
  }
}

await runBenchmark(main, [DB_NAME], cleanup);
