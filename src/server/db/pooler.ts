import "server-only";
import pg from "pg";
import { processState } from "@/server/process-state";

// Running behind a transaction pooler (PgBouncer in transaction mode), which refuses unknown startup
// parameters such as statement_timeout and keeps no session state between transactions. The app
// learns an address is a pooler from its first such refusal and then sends it no startup timeouts
// and no named statements; the timeouts come from the role's settings instead (applyRoleTimeouts,
// run by every migration). See docs/decisions/040-timeouts-behind-a-pooler.md.

const poolers = processState("poolers", () => new Set<string>());

const addressOf = (url: string | undefined): string => {
  try {
    const { hostname, port, searchParams } = new URL(url ?? "");
    // A Unix socket's folder (`?host=/folder`, as node-postgres reads it) stands for the server.
    return `${searchParams.get("host") ?? hostname}:${port || 5432}`;
  } catch {
    return "";
  }
};

/** Whether the server at `url` turned out to be a transaction pooler. */
export const behindPooler = (url: string | undefined): boolean => poolers.has(addressOf(url));

/** Whether `error` is a pooler refusing a startup parameter; if so, remembers that `url` is one. */
export function notePoolerRefusal(url: string | undefined, error: unknown): boolean {
  const message = (error as Error | undefined)?.message ?? "";
  if (!/unsupported startup parameter/i.test(message)) return false;
  poolers.add(addressOf(url));
  return true;
}

/** `config` as its server takes it: without the startup timeouts once that server is known to be a pooler. */
export function startupConfig(config: pg.ClientConfig): pg.ClientConfig {
  if (!behindPooler(config.connectionString)) return config;
  const { statement_timeout, idle_in_transaction_session_timeout, ...accepted } = config;
  return accepted;
}

/** A connected client for `config`: once more without the startup timeouts when a pooler refused them. */
export async function connectClient(config: pg.ClientConfig): Promise<pg.Client> {
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client(startupConfig(config));
    try {
      await client.connect();
      return client;
    } catch (error) {
      if (attempt > 0 || !notePoolerRefusal(config.connectionString, error)) throw error;
    }
  }
}

/**
 * A pool's `onConnect` for `url`: gives each new connection the server-side timeouts with SET. A pool
 * sends none at startup, so a pooler never refuses its connections; behind one, where a session's
 * SET would not outlive its transaction, the role's settings apply instead.
 */
export function setSessionTimeouts(
  url: string,
  timeouts: Pick<pg.ClientConfig, "statement_timeout" | "idle_in_transaction_session_timeout">,
): (client: pg.ClientBase) => Promise<void> {
  const sql = Object.entries(timeouts)
    .flatMap(([name, ms]) => (typeof ms === "number" ? [`SET ${name} = ${Math.trunc(ms)}`] : []))
    .join("; ");
  return async (client) => {
    if (sql && !behindPooler(url)) await client.query(sql);
  };
}

/**
 * Connects once to `url`, to learn before serving whether it is a pooler that refuses startup
 * timeouts (then the app sends it no named statements and no LISTEN). Throws when it cannot connect.
 */
export async function detectPooler(url: string, config: pg.ClientConfig): Promise<boolean> {
  const client = await connectClient({ ...config, connectionString: url });
  await client.end().catch(() => undefined);
  return behindPooler(url);
}

/**
 * Makes the timeouts the role's own in this database, so that every server connection gets them
 * at its start, however it is reached (a pooler passes no startup parameters). Needs no privilege
 * beyond the role itself; `ms` is the statement timeout, `idleMs` the idle-in-transaction one.
 */
export async function applyRoleTimeouts(client: pg.ClientBase, ms: number, idleMs: number): Promise<void> {
  const { rows } = await client.query<{ db: string }>("SELECT current_database() AS db");
  const db = pg.escapeIdentifier(rows[0]?.db ?? "");
  await client.query(`ALTER ROLE CURRENT_USER IN DATABASE ${db} SET statement_timeout = ${Math.trunc(ms)}`);
  await client.query(
    `ALTER ROLE CURRENT_USER IN DATABASE ${db} SET idle_in_transaction_session_timeout = ${Math.trunc(idleMs)}`,
  );
}
