import "server-only";
import { Redis } from "ioredis";
import { log } from "@/server/log";
import { invalidateLocally, notifyPayload, receivedPayload, type Invalidation } from "./invalidation-bus";

// Invalidations carried by Redis pub/sub, for a deployment whose processes reach PostgreSQL only
// through a transaction pooler (where LISTEN cannot work). A process that commits a change
// publishes it; every process subscribes. Pub/sub keeps nothing for a subscriber that is away, so
// while the subscription is down caches are not trusted, and everything cached is forgotten when it
// is lost and again once it is back.

const CONNECT_TIMEOUT_MS = 1_000;
const RETRY_MAX_MS = 2_000;

export interface RedisRoute {
  /** Whether messages reach this process now. */
  hearing(): boolean;
  publish(event: Invalidation): void;
  stop(): Promise<void>;
}

const channelOf = (prefix: string) => `${prefix}auth-invalidate`;

export function listenOnRedis(url: string, prefix: string): RedisRoute {
  const channel = channelOf(prefix);
  const options = {
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(100 * 2 ** attempt, RETRY_MAX_MS),
    keepAlive: 10_000,
    lazyConnect: false,
  };
  const subscriber = new Redis(url, { ...options, autoResubscribe: true });
  // Publishing fails at once while Redis is away rather than queueing: subscribers are away too
  // and forget everything when they are back.
  const publisher = new Redis(url, { ...options, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  let subscribed = false;
  let warned = false;
  subscriber.on("error", (error: Error) => {
    if (!warned) log.warn("auth invalidation subscriber cannot reach Redis", { error: error.message });
    warned = true;
  });
  publisher.on("error", () => undefined);
  subscriber.on("ready", () => {
    // ioredis subscribes again on its own after a reconnection; "ready" follows it.
    void subscriber.subscribe(channel).then(
      () => {
        if (warned) log.info("auth invalidation subscriber is back");
        warned = false;
        subscribed = true;
        invalidateLocally({ all: true });
      },
      () => undefined,
    );
  });
  subscriber.on("close", () => {
    if (!subscribed) return;
    subscribed = false;
    invalidateLocally({ all: true });
  });
  subscriber.on("message", (from: string, payload: string) => {
    if (from !== channel) return;
    const received = receivedPayload(payload);
    if ("event" in received) invalidateLocally(received.event);
  });
  return {
    hearing: () => subscribed,
    publish(event) {
      publisher
        .publish(channel, notifyPayload(event))
        .catch((error: Error) => log.warn("could not publish an auth invalidation to Redis", { error: error.message }));
    },
    async stop() {
      subscribed = false;
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}

/**
 * Publishes `events` from a process that does not subscribe (the CLI): connects, publishes each,
 * disconnects. Throws when Redis cannot be reached.
 */
export async function publishOnRedis(url: string, prefix: string, events: Invalidation[]): Promise<void> {
  const publisher = new Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  publisher.on("error", () => undefined);
  try {
    await publisher.connect();
    for (const event of events) await publisher.publish(channelOf(prefix), notifyPayload(event));
  } finally {
    publisher.disconnect();
  }
}
