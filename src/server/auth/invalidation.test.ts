import pg from "pg";
import { describe, expect, it } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { testDatabase } from "@/test/database";
import { createSysAdmin, seedRoles } from "@/test/fixtures";
import { startTcpProxy } from "@/test/tcp-proxy";
import { authenticateApiKey } from "./api-key-stage";
import { CHANNEL, listenForInvalidations, listeningForInvalidations, notifyPayload } from "./invalidation";
import { DomainError } from "@/server/errors";
import { readContext } from "@/server/db/context";

// The LISTEN connection of this process goes through a TCP proxy of the test's own, while every
// other query goes straight to PostgreSQL: the listener can be taken away alone, as when its
// connection drops or goes silent while the pool still works.

const { client, url } = await testDatabase();
await seedRoles(client);
const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
const proxied = new URL(url);
proxied.host = proxy.address;
listenForInvalidations(proxied.toString());

const admin = await createSysAdmin(client);
const newKey = async () =>
  (
    await createApiKey(readContext(systemActor("test")), admin.id, {
      name: "listen",
      scopes: ["svc:system:orgs:read"],
      expires_at: null,
    })
  ).raw_key;

async function until(condition: () => boolean, attempts = 300) {
  for (let i = 0; i < attempts && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(condition()).toBe(true);
}

/** Revokes a key in the database as another process would, announcing it or not. */
async function revokeElsewhere(raw: string, announce: boolean) {
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    const { rows } = await other.query<{ id: string }>(
      "UPDATE api_keys SET is_active = false WHERE key_prefix = $1 RETURNING id",
      [raw.slice(0, 12)],
    );
    if (announce)
      await other.query("SELECT pg_notify($1, $2)", [CHANNEL, notifyPayload({ keyId: rows[0]?.id as string })]);
  } finally {
    await other.end();
  }
}

/** Uses the key until it is refused as revoked (a notification takes a moment to arrive). */
async function untilRevoked(raw: string) {
  let seen = "";
  for (let i = 0; i < 100 && seen !== "api_key_revoked"; i++) {
    seen = await outcome(raw);
    if (seen !== "api_key_revoked") await new Promise((r) => setTimeout(r, 20));
  }
  expect(seen).toBe("api_key_revoked");
}

const outcome = async (raw: string) => {
  try {
    await authenticateApiKey(raw);
    return "accepted";
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error);
  }
};

/** Once listening: a key in use here, revoked and announced by another process, is refused here. */
async function expectAnnouncedRevokeHeard() {
  await until(listeningForInvalidations);
  const key = await newKey();
  expect(await outcome(key)).toBe("accepted");
  await revokeElsewhere(key, true);
  await untilRevoked(key);
}

describe("auth invalidation listener", () => {
  it("hears a revoke announced by another process and drops the cached key", async () => {
    await expectAnnouncedRevokeHeard();
  });

  it("trusts no cached key while its connection is down, and comes back by itself", async () => {
    const key = await newKey();
    expect(await outcome(key)).toBe("accepted"); // cached
    await proxy.setMode("refuse");
    await until(() => !listeningForInvalidations());
    expect(await outcome(key)).toBe("accepted"); // looked up again, not cached
    // Revoked meanwhile, and the announcement is lost: the next use finds it revoked anyway.
    await revokeElsewhere(key, true);
    expect(await outcome(key)).toBe("api_key_revoked");

    await proxy.setMode("forward");
    await expectAnnouncedRevokeHeard();
  });

  it("notices a connection that went silent, and forgets what it cached", async () => {
    await until(listeningForInvalidations);
    const key = await newKey();
    expect(await outcome(key)).toBe("accepted"); // cached
    await proxy.setMode("blackhole");
    // Revoked without a word reaching this process: only the heartbeat tells the connection is gone.
    await revokeElsewhere(key, false);
    await until(() => !listeningForInvalidations(), 400);
    expect(await outcome(key)).toBe("api_key_revoked");
    await proxy.setMode("forward");
    await until(listeningForInvalidations);
  });
});
