import "server-only";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { connectionSettings } from "@/server/db/client";
import { connectClient, notePoolerRefusal, startupConfig } from "@/server/db/pooler";
import { log } from "@/server/log";
import { CHANNEL, invalidateLocally, notifyPayload, receivedPayload } from "./invalidation-bus";

// Receives invalidations from other processes through PostgreSQL: a LISTEN on a session connection
// (the direct URL) that reconnects by itself and forgets every cache when it is lost and again once
// it is back. At start it notifies itself through DATABASE_URL; behind a transaction pooler that
// notification never arrives, and the listener stops for good (`deaf`: it cannot receive them).
// See docs/decisions/008-key-cache-and-invalidation.md and docs/decisions/040-timeouts-behind-a-pooler.md.

const HEARTBEAT_MS = 5_000;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 2_000;
/** How long the listener waits for its own probe before concluding it cannot hear. */
const PROBE_WAIT_MS = 2_000;

export interface PostgresRoute {
  /** Whether notifications reach this process now. */
  hearing(): boolean;
  /** True once the probe came back; false when it never did (the listener then stopped). */
  verified(): boolean | undefined;
  stop(): Promise<void>;
}

interface Subscription {
  url: string;
  probeUrl: string;
  client?: pg.Client;
  /** The connection being made (until it listens, or fails). */
  connecting?: Promise<void>;
  heartbeat?: NodeJS.Timeout;
  /** The heartbeat's query while it runs. */
  beat?: Promise<unknown>;
  retry?: NodeJS.Timeout;
  failures: number;
  stopped: boolean;
  verified?: boolean;
  probe?: { token: string; heard: () => void; abandon: () => void };
  onDeaf: () => void;
}

export function listenOnPostgres(url: string, probeUrl: string, onDeaf: () => void): PostgresRoute {
  const sub: Subscription = { url, probeUrl, failures: 0, stopped: false, onDeaf };
  sub.connecting = connect(sub);
  return {
    hearing: () => sub.client !== undefined,
    verified: () => sub.verified,
    stop: () => stop(sub),
  };
}

/** Sends a probe through `probeUrl`, resolving whether the listener heard it within the wait. */
async function probe(sub: Subscription): Promise<boolean> {
  const token = randomUUID();
  const heard = new Promise<boolean>((resolve) => {
    sub.probe = { token, heard: () => resolve(true), abandon: () => resolve(false) };
    setTimeout(() => resolve(false), PROBE_WAIT_MS).unref();
  });
  const sender = await connectClient({ connectionString: sub.probeUrl, ...connectionSettings() });
  sender.on("error", () => undefined);
  try {
    await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, notifyPayload({ probe: token })]);
  } finally {
    await sender.end().catch(() => undefined);
  }
  const result = await heard;
  sub.probe = undefined;
  return result;
}

async function connect(sub: Subscription): Promise<void> {
  const client = new pg.Client(startupConfig({ connectionString: sub.url, ...connectionSettings() }));
  let lost = false;
  const onLost = (error: Error) => {
    if (lost) return;
    lost = true;
    clearInterval(sub.heartbeat);
    const wasListening = sub.client === client;
    sub.client = undefined;
    client.removeAllListeners("notification");
    client.on("error", () => undefined);
    client.connection.stream.destroy();
    if (sub.stopped) return;
    if (wasListening || sub.failures === 0)
      log.warn("auth invalidation listener lost its connection; caches are not trusted until it is back", {
        error: error.message,
      });
    invalidateLocally({ all: true });
    sub.failures += 1;
    const wait = Math.min(RETRY_FIRST_MS * 2 ** (sub.failures - 1), RETRY_MAX_MS);
    sub.retry = setTimeout(() => (sub.connecting = connect(sub)), wait * (0.75 + Math.random() * 0.5)).unref();
  };
  client.on("error", onLost);
  client.on("end", () => onLost(new Error("connection ended")));
  client.on("notification", (message) => {
    const received = receivedPayload(message.payload);
    if ("probe" in received) {
      if (received.probe === sub.probe?.token) sub.probe.heard();
    } else invalidateLocally(received.event);
  });
  try {
    // A pooler's refusal is remembered: the next attempt goes without the startup timeouts.
    await client.connect().catch((error: unknown) => {
      notePoolerRefusal(sub.url, error);
      throw error;
    });
    await client.query(`LISTEN ${CHANNEL}`);
    if (sub.verified === undefined) {
      const heard = await probe(sub);
      if (!heard && !lost && !sub.stopped) {
        sub.verified = false;
        await stop(sub, client);
        sub.onDeaf();
        return;
      }
      if (heard) sub.verified = true;
    }
  } catch (error) {
    return onLost(error as Error);
  }
  if (lost || sub.stopped) return close(client);
  if (sub.failures > 0) log.info("auth invalidation listener is back");
  sub.failures = 0;
  sub.client = client;
  // Whatever was cached while nobody listened may have been revoked meanwhile.
  invalidateLocally({ all: true });
  // A silent connection (a server or network that stopped answering) raises no error by itself:
  // a query that gets no answer within query_timeout does.
  sub.heartbeat = setInterval(() => (sub.beat = client.query("SELECT 1").catch(onLost)), HEARTBEAT_MS).unref();
}

/**
 * Ends `client` with PostgreSQL's goodbye. node-postgres drops the socket instead while a query
 * runs, which the server counts as an abandoned session: callers let their query finish first.
 */
async function close(client: pg.Client): Promise<void> {
  client.removeAllListeners("end");
  client.on("error", () => undefined);
  await client.end().catch(() => undefined);
}

/**
 * Stops listening. From outside (shutdown), it waits for a connection being made, which sees the
 * stop and ends itself, and for a heartbeat in flight, so every connection ends with a goodbye.
 */
async function stop(sub: Subscription, connecting?: pg.Client): Promise<void> {
  sub.stopped = true;
  clearTimeout(sub.retry);
  clearInterval(sub.heartbeat);
  sub.probe?.abandon();
  if (!connecting) await sub.connecting;
  await sub.beat;
  const client = sub.client ?? connecting;
  sub.client = undefined;
  if (client) await close(client);
}
