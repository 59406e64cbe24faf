import net from "node:net";
import { afterAll } from "vitest";
import { createBaseClient } from "@/server/db/client";

// A TCP proxy on 127.0.0.1 between the app and a server (PostgreSQL, Redis), so a test can take the
// server away without touching it: "forward" passes bytes, "refuse" closes and refuses connections
// as a stopped server does, "blackhole" keeps them open with nothing passing. Leaving a black hole
// resets the connections it held, as a peer that forgot them would; `reset()` resets every open one
// (an RST, as after a crash, not an orderly FIN).

type ProxyMode = "forward" | "refuse" | "blackhole";

export interface TcpProxy {
  port: number;
  /** host:port of the proxy, for a connection string. */
  address: string;
  mode(): ProxyMode;
  setMode(mode: ProxyMode): Promise<void>;
  /** Resets every open connection (RST both ways); the mode stays. */
  reset(): void;
  /** Open connections whose bytes the black hole has swallowed: statements (or handshakes) sent and never to be answered. */
  swallowing(): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  swallowed?: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = "forward";
  const pairs = new Set<Pair>();
  let port = 0;

  /** Ends a pair: "close" as a stopping server does (FIN), "reset" as a peer that forgot it (RST). */
  const drop = (pair: Pair, how: "close" | "reset" = "reset") => {
    pairs.delete(pair);
    if (how === "close") pair.client.destroySoon();
    else pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  };

  const server = net.createServer((client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on("error", () => drop(pair));
    client.on("close", () => drop(pair));
    // Bytes pass only while forwarding; in a black hole they are swallowed.
    client.on("data", (chunk) => {
      if (mode === "forward" && pair.upstream) pair.upstream.write(chunk);
      else pair.swallowed = true;
    });
    if (mode === "blackhole") return; // accepted, never answered
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on("error", () => drop(pair));
    upstream.on("close", () => drop(pair));
    upstream.on("data", (chunk) => {
      if (mode === "forward") client.write(chunk);
    });
  });

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

  await listen();

  const proxy: TcpProxy = {
    port,
    address: `127.0.0.1:${port}`,
    mode: () => mode,
    async setMode(next) {
      const previous = mode;
      mode = next;
      if (next === "refuse") {
        for (const pair of [...pairs]) drop(pair, "close");
        await stopListening();
      } else if (previous === "refuse") {
        await listen();
      } else if (previous === "blackhole" && next === "forward") {
        proxy.reset();
      }
    },
    reset() {
      for (const pair of [...pairs]) drop(pair);
    },
    swallowing: () => [...pairs].filter((pair) => pair.swallowed).length,
    async close() {
      proxy.reset();
      await stopListening();
    },
  };
  afterAll(() => proxy.close());
  return proxy;
}

/** A client of one connection to the database at `url`, through a proxy of its own. */
export async function proxiedClient(url: string) {
  const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
  const proxied = new URL(url);
  proxied.host = proxy.address;
  return { proxy, client: createBaseClient(proxied.toString(), { poolMax: 1 }) };
}
