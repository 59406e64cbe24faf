// The peer of bench/peer.ts: Better Auth with its API key plugin, on PostgreSQL through its built-in
// Kysely adapter (a pg Pool), behind a small Node HTTP server with the route svc's bench calls:
// GET /api/v1/me with X-API-KEY answers 200 and the key's owner, or the plugin's error status (401
// for a wrong key). The key is verified by the plugin's session-from-key behaviour
// (enableSessionForAPIKeys: auth.api.getSession reads the header, verifies the key, loads its owner).
//
// Better Auth is not a dependency of svc: the bench installs it at a pinned version into a directory
// of its own and copies this file there, where its imports resolve (ES modules do not read
// NODE_PATH). Started, it creates its tables (getMigrations, what Better Auth's migrate CLI runs),
// a user and PEER_KEYS keys of the user, listens on 127.0.0.1:PEER_PORT (0: any free port), and
// prints one JSON line: { port, keys, user }.
//
// Environment: PEER_DATABASE_URL, PEER_SECRET, PEER_PORT, PEER_KEYS, PEER_POOL_MAX, PEER_STORAGE:
// - cache (the default): the plugin's key cache, its secondary storage, held in this process (one
//   process, as svc's cache is in its own), the keys in PostgreSQL (fallbackToDatabase);
// - database: the plugin's default, every verification reads the key's row;
// - cache-only: the keys in the secondary storage alone, none in PostgreSQL (in this process,
//   they last as long as it does: the plugin's upper bound rather than a deployment).
// Whatever the storage, the owner is read from PostgreSQL on every verification, and with the keys
// in PostgreSQL each verification writes the key's row (its lastRequest, then its updatedAt).

import { createServer } from "node:http";
import { apiKey } from "@better-auth/api-key";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import pg from "pg";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const storage = process.env.PEER_STORAGE || "cache";
const STORAGES = {
  database: {},
  cache: { storage: "secondary-storage", fallbackToDatabase: true, customStorage: memoryStorage() },
  "cache-only": { storage: "secondary-storage", customStorage: memoryStorage() },
};
if (!(storage in STORAGES)) throw new Error(`PEER_STORAGE: one of ${Object.keys(STORAGES).join(", ")}`);
const port = Number(process.env.PEER_PORT || 0);

/** The plugin's secondary storage, in this process (one process, as svc's cache is in its process). */
function memoryStorage() {
  const entries = new Map();
  const live = (key) => {
    const entry = entries.get(key);
    if (entry && entry.until !== null && entry.until <= Date.now()) entries.delete(key);
    return entries.get(key);
  };
  return {
    get: (key) => live(key)?.value ?? null,
    getAndDelete: (key) => {
      const value = live(key)?.value ?? null;
      entries.delete(key);
      return value;
    },
    increment: (key, ttl) => {
      const entry = live(key);
      const value = Number(entry?.value ?? 0) + 1;
      entries.set(key, { value: String(value), until: entry ? entry.until : Date.now() + ttl * 1000 });
      return value;
    },
    set: (key, value, ttl) => {
      entries.set(key, { value, until: ttl ? Date.now() + ttl * 1000 : null });
    },
    delete: (key) => {
      entries.delete(key);
    },
  };
}

const pool = new pg.Pool({ connectionString: env("PEER_DATABASE_URL"), max: Number(process.env.PEER_POOL_MAX || 10) });
const options = {
  database: pool,
  secret: env("PEER_SECRET"),
  baseURL: `http://127.0.0.1:${port || 3000}`,
  emailAndPassword: { enabled: true },
  // The framework's own request limiter applies to auth.handler's routes, not to this server's;
  // off, so it is plainly not in the way.
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { level: "error" },
  plugins: [
    apiKey({
      enableSessionForAPIKeys: true,
      // The bench measures verification, not 429s (svc's bench keys allow far more than it sends).
      rateLimit: { enabled: false },
      // Work the plugin can do after answering (deleting expired keys, cache writes), it does so.
      deferUpdates: true,
      ...STORAGES[storage],
    }),
  ],
};
// The tables, then the instance (at its start it checks the schema, and would log the tables missing).
const { runMigrations } = await getMigrations(options);
await runMigrations();
const auth = betterAuth(options);

// The owner and its keys, made through the plugin's server API as an application would.
const signUp = await auth.api.signUpEmail({
  body: { email: "bench@example.com", password: `${env("PEER_SECRET").slice(0, 24)}Aa1!`, name: "Bench owner" },
});
const user = { id: signUp.user.id, email: signUp.user.email };
const keys = [];
for (let i = 0, count = Number(process.env.PEER_KEYS || 1); i < count; i++)
  keys.push((await auth.api.createApiKey({ body: { userId: user.id, name: `bench key ${i}` } })).key);

const server = createServer(async (request, response) => {
  const send = (status, body) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    response.end(text);
  };
  if (request.method !== "GET" || request.url !== "/api/v1/me") return send(404, { error: "not found" });
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === "string") headers.set(name, value);
    const session = await auth.api.getSession({ headers });
    if (!session) return send(401, { error: "unauthorized" });
    const { user: owner } = session;
    send(200, { user: { id: owner.id, email: owner.email, name: owner.name }, key: { id: session.session.id } });
  } catch (error) {
    // The plugin's refusals are APIErrors with their HTTP status (401 for an unknown key).
    const status = typeof error?.statusCode === "number" ? error.statusCode : 500;
    if (status === 500) process.stderr.write(`${error?.stack ?? error}\n`);
    send(status, { error: error?.body?.code ?? "error" });
  }
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port, keys, user })}\n`);
});
const stop = () => server.close(() => pool.end().finally(() => process.exit(0)));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
