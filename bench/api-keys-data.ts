// The API-key benchmark's database (bench/api-keys.ts): owners, organizations and keys inserted in
// bulk, a bench-only trigger that counts the rows each UPDATE of api_keys changed, and the writes
// the key path made (last_used_at, usage), read from PostgreSQL's statistics and that trigger.

import pg from "pg";
import { generateKey } from "@/server/auth/api-key-format";
import { freshDatabase, say } from "./lib";

const INSERT_BATCH = 5_000;

export interface Keys {
  /** Restricted keys (allowed_cidrs, allowed_org_ids), the first `usedKeys` of the table. */
  valid: string[];
  /** Unrestricted keys, the next `manyKeys` of the table. */
  many: string[];
  /** Keys of a service account (a user of kind `service`, org_member of the first organization), besides `keys`. */
  service: string[];
  unknown: string[];
  badChecksum: string[];
}

export interface KeySetup {
  dbName: string;
  keys: number;
  usedKeys: number;
  manyKeys: number;
  owners: number;
  allowedCidrs: string[];
  rateLimit: { requests: number; window_seconds: number };
}

/**
 * A service account of `orgId` (kind `service`, no password, org_member there) and `count` keys of
 * it reading the organization: what a machine integration holds.
 */
async function serviceAccountKeys(
  client: pg.Client,
  orgId: string,
  count: number,
  rateLimit: KeySetup["rateLimit"],
): Promise<string[]> {
  const account = await client.query<{ id: string }>(
    "INSERT INTO users (username, display_name, kind, created_by, updated_by) VALUES ('bench_robot', 'Bench robot', 'service', 'system:bench', 'system:bench') RETURNING id",
  );
  const id = account.rows[0]?.id as string;
  await client.query("INSERT INTO user_org_memberships (user_id, org_id) VALUES ($1, $2)", [id, orgId]);
  await client.query(
    "INSERT INTO user_roles (user_id, role_id, org_id) SELECT $1, id, $2 FROM roles WHERE name = 'org_member'",
    [id, orgId],
  );
  const keys = Array.from({ length: count }, () => generateKey());
  await client.query(
    `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
     SELECT $1, 'bench robot key', h, p, $4::jsonb, $5::jsonb, 'system:bench'
     FROM unnest($2::text[], $3::text[]) AS t(h, p)`,
    [
      id,
      keys.map((k) => k.hash),
      keys.map((k) => k.prefix),
      JSON.stringify(["svc:org:read"]),
      JSON.stringify(rateLimit),
    ],
  );
  return keys.map((k) => k.raw);
}

/** Creates the database, its owners and organizations, and `keys` keys; returns the raw keys the bench sends. */
export async function setupDatabase(setup: KeySetup): Promise<{ url: string; keys: Keys; serverVersion: string }> {
  const { keys: KEYS, usedKeys: USED_KEYS, manyKeys: MANY_KEYS, owners: OWNERS } = setup;
  const url = await freshDatabase(setup.dbName);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const serverVersion =
      (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "?";
    const admin = await client.query<{ id: string }>("SELECT id FROM users WHERE username = 'admin'");
    const owners = [admin.rows[0]?.id as string];
    for (let i = 1; i < OWNERS; i++) {
      const row = await client.query<{ id: string }>(
        "INSERT INTO users (username, display_name, created_by, updated_by) VALUES ($1, $2, 'system:bench', 'system:bench') RETURNING id",
        [`bench_owner_${i}`, `Bench owner ${i}`],
      );
      owners.push(row.rows[0]?.id as string);
    }

    // Every owner belongs to two organizations; the keys under test may act in the first only.
    const orgs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const row = await client.query<{ id: string }>(
        "INSERT INTO organizations (name, created_by, updated_by) VALUES ($1, 'system:bench', 'system:bench') RETURNING id",
        [`bench_org_${i}`],
      );
      orgs.push(row.rows[0]?.id as string);
    }
    for (const owner of owners)
      for (const org of orgs)
        await client.query("INSERT INTO user_org_memberships (user_id, org_id) VALUES ($1, $2)", [owner, org]);

    const started = performance.now();
    const valid: string[] = [];
    const validHashes: string[] = [];
    const many: string[] = [];
    const scopes = JSON.stringify(["svc:system:users:read", "svc:org:read", "svc:orchestrators:read"]);
    for (let from = 0; from < KEYS; from += INSERT_BATCH) {
      const count = Math.min(INSERT_BATCH, KEYS - from);
      const userIds: string[] = [];
      const names: string[] = [];
      const hashes: string[] = [];
      const prefixes: string[] = [];
      for (let i = from; i < from + count; i++) {
        const key = generateKey();
        if (valid.length < USED_KEYS) {
          valid.push(key.raw);
          validHashes.push(key.hash);
        } else if (many.length < MANY_KEYS) many.push(key.raw);
        userIds.push(owners[i % owners.length] as string);
        names.push(`bench key ${i}`);
        hashes.push(key.hash);
        prefixes.push(key.prefix);
      }
      await client.query(
        `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
         SELECT u, n, h, p, $5::jsonb, $6::jsonb, 'system:bench'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS t(u, n, h, p)`,
        [userIds, names, hashes, prefixes, scopes, JSON.stringify(setup.rateLimit)],
      );
    }
    await client.query(
      "UPDATE api_keys SET allowed_cidrs = $1::varchar[], allowed_org_ids = $2::uuid[] WHERE key_hash = ANY($3::text[])",
      [setup.allowedCidrs, [orgs[0]], validHashes],
    );
    const service = await serviceAccountKeys(client, orgs[0] as string, USED_KEYS, setup.rateLimit);
    await client.query("VACUUM ANALYZE api_keys");
    const inserted = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM api_keys")).rows[0]?.n);
    if (inserted !== KEYS + service.length)
      throw new Error(`expected ${KEYS + service.length} keys, found ${inserted}`);
    say(
      `Inserted ${KEYS.toLocaleString("en")} API keys for ${OWNERS} owners in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );

    // Bench-only instrumentation: one row per UPDATE statement on api_keys with the rows it
    // changed. Exact and without the statistics collector's lag; cross-checks n_tup_upd.
    await client.query(`
      CREATE TABLE bench_api_key_updates (at timestamptz NOT NULL DEFAULT clock_timestamp(), rows integer NOT NULL);
      CREATE FUNCTION bench_count_api_key_updates() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO bench_api_key_updates (rows) SELECT count(*) FROM changed;
        RETURN NULL;
      END $$;
      CREATE TRIGGER bench_count_api_key_updates AFTER UPDATE ON api_keys
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bench_count_api_key_updates();
    `);

    const unknown = Array.from({ length: USED_KEYS }, () => generateKey().raw); // never inserted
    const badChecksum = valid.map((raw) => raw.slice(0, -1) + (raw.endsWith("0") ? "1" : "0"));
    return { url, keys: { valid, many, service, unknown, badChecksum }, serverVersion };
  } finally {
    await client.end();
  }
}

/** What the key path wrote to api_keys and api_key_usage so far. */
export async function apiKeyUpdateStats(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_stat_clear_snapshot()");
    const stat = await client.query<{ n: string }>(
      "SELECT n_tup_upd AS n FROM pg_stat_user_tables WHERE relname = 'api_keys'",
    );
    const trig = await client.query<{ statements: string; nonempty: string; rows: string }>(
      "SELECT count(*) AS statements, count(*) FILTER (WHERE rows > 0) AS nonempty, coalesce(sum(rows), 0) AS rows FROM bench_api_key_updates",
    );
    const touched = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM api_keys WHERE last_used_at IS NOT NULL",
    );
    const usage = await client.query<{ n: string; rows: string }>(
      "SELECT coalesce(sum(count), 0) AS n, count(*) AS rows FROM api_key_usage",
    );
    const db = await client.query<{ n: string }>(
      "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()",
    );
    return {
      transactions: Number(db.rows[0]?.n ?? 0),
      nTupUpd: Number(stat.rows[0]?.n ?? 0),
      updateStatements: Number(trig.rows[0]?.statements ?? 0),
      nonEmptyUpdateStatements: Number(trig.rows[0]?.nonempty ?? 0),
      rowsUpdated: Number(trig.rows[0]?.rows ?? 0),
      keysWithLastUsed: Number(touched.rows[0]?.n ?? 0),
      usageCounted: Number(usage.rows[0]?.n ?? 0),
      usageRows: Number(usage.rows[0]?.rows ?? 0),
    };
  } finally {
    await client.end();
  }
}
