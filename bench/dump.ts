// `npm run bench:dump`: how long moving off the embedded database takes with 100,000 API keys —
// `db dump` while the app serves, `db move` into PostgreSQL, and the server's pg_dump of the result.
// Target: each under a minute. See docs/benchmarks.md#dump-and-move.

import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { pgDump } from "@/server/db/dump";
import { startEmbedded } from "@/server/db/embedded";
import { requestDump } from "@/server/db/embedded-dump";
import { migrate } from "@/server/db/migrate";
import { moveDatabase } from "@/server/db/transfer";
import { adminQuery, databaseUrl, dropDatabase, f, intSetting, machineLine, say, writeResults } from "./lib";

const KEYS = intSetting("BENCH_KEYS", 100_000, 1, 1_000_000);
const TARGET_MS = 60_000;
const DATABASE = "svc_bench_dump";

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

async function main() {
  const startedAt = new Date();
  say(`bench:dump — ${KEYS.toLocaleString("en")} API keys. ${machineLine()}`);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-bench-dump-"));
  const embedded = await startEmbedded(dataDir);
  try {
    await migrate(embedded.url);
    const client = new pg.Client({ connectionString: embedded.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>(
        "INSERT INTO users (username, password_hash) VALUES ('bench-owner', 'x') RETURNING id",
      );
      await client.query(
        `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes)
         SELECT $1, 'bench ' || i, encode(sha256(i::text::bytea), 'hex'), 'cdk_' || lpad(i::text, 8, '0'), '["svc:system:orgs:read"]'
         FROM generate_series(1, $2::int) AS i`,
        [rows[0]?.id, KEYS],
      );
    } finally {
      await client.end();
    }
    const marker = JSON.parse(await readFile(path.join(dataDir, "embedded.json"), "utf8")) as {
      dumps: { socket: string; token: string };
    };
    const [dump, dumpMs] = await timed(() => requestDump(marker.dumps, {}));
    say(`embedded dump (while serving):  ${f(dumpMs / 1000, 1)} s, ${f(dump.length / 1e6, 1)} MB`);

    await adminQuery(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await adminQuery(`CREATE DATABASE "${DATABASE}"`);
    const target = databaseUrl(DATABASE);
    const [moved, moveMs] = await timed(() => moveDatabase({ url: embedded.url, dump: embedded.dump }, target));
    say(`move into PostgreSQL:           ${f(moveMs / 1000, 1)} s, api_keys ${moved.tables.api_keys}`);
    const [serverDump, serverDumpMs] = await timed(() => pgDump(target));
    say(`pg_dump of PostgreSQL:          ${f(serverDumpMs / 1000, 1)} s, ${f(serverDump.length / 1e6, 1)} MB`);
    const within = dumpMs < TARGET_MS && serverDumpMs < TARGET_MS;
    say(`target: each dump under ${TARGET_MS / 1000} s — ${within ? "met" : "NOT met"}`);
    const file = await writeResults("dump", startedAt, {
      keys: KEYS,
      embeddedDumpMs: Math.round(dumpMs),
      embeddedDumpBytes: dump.length,
      moveMs: Math.round(moveMs),
      serverDumpMs: Math.round(serverDumpMs),
      serverDumpBytes: serverDump.length,
    });
    say(`results: ${file}`);
    await dropDatabase(DATABASE);
  } finally {
    await embedded.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
