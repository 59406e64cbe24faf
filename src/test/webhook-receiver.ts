import http from "node:http";
import { listenOnLoopback } from "./loopback-server";

// A real HTTP receiver for webhook tests on 127.0.0.1: keeps every request (headers and raw body)
// and answers what the test says (204 unless told otherwise).

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Sets how the next requests are answered: a status per request, or a function. */
  answer(with_: (request: Received) => number | Promise<number>): void;
  /** The requests whose JSON body has `type` (and satisfies `where`). */
  ofType(type: string, where?: (payload: Record<string, unknown>) => boolean): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: (request: Received) => number | Promise<number> = () => 204;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: Received = {
        path: req.url ?? "/",
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(entry);
      void Promise.resolve(answer(entry)).then((status) => {
        res.statusCode = status;
        res.end(status >= 400 ? `failure ${status} ${"x".repeat(3000)}` : "");
      });
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    received,
    answer: (f) => (answer = f),
    ofType: (type, where = () => true) =>
      received.filter((r) => {
        const payload = JSON.parse(r.body) as Record<string, unknown>;
        return payload.type === type && where(payload);
      }),
    close,
  };
}

/**
 * A receiver for webhook endpoints that services called in this test process save, with plain HTTP
 * on loopback allowed for them (SVC_ALLOW_HTTP_LOOPBACK): no test's endpoint leaves this machine.
 * Call it before anything reads the environment.
 */
export function startEndpointReceiver(): Promise<Receiver> {
  process.env.SVC_ALLOW_HTTP_LOOPBACK = "1";
  return startReceiver();
}
