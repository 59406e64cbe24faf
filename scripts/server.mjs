// The app's HTTP server (`node scripts/server.mjs [--dev] [-p PORT] [-H HOST]`, what `npm start`,
// the tests and the benchmarks run): Next.js loaded as a library behind a node:http server of our
// own, for what Next.js does not give a route handler: the client's real address, problem+json for
// bad /api requests (src/server/rest/front-door.ts), security headers decided per request, and a
// graceful drain on SIGTERM. See docs/decisions/001-own-http-server.md.
import http from "node:http";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import v8 from "node:v8";
import ipaddr from "ipaddr.js";
import { contentSecurityPolicy, STATIC_SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from "../security-headers.mjs";

// Read by src/server/http/client.ts.
const CLIENT_ADDRESS_HEADER = "x-svc-client-address";

const { values } = parseArgs({
  options: {
    dev: { type: "boolean", default: false },
    port: { type: "string", short: "p" },
    hostname: { type: "string", short: "H" },
  },
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname;
const trustedHops = Math.max(0, Number.parseInt(process.env.SVC_TRUSTED_PROXY_HOPS ?? "0", 10) || 0);
const shutdownGraceMs = Math.max(0, Number.parseInt(process.env.SVC_SHUTDOWN_GRACE_MS ?? "10000", 10) || 0);
// Shutdown hooks get this long per phase: a database that does not answer must not keep the process.
const HOOK_PHASE_LIMIT_MS = 5_000;

// The process state the server modules keep (src/server/process-state.ts), which this plain
// JavaScript file cannot import: the same globalThis slot, made here first. Two entries are shared:
// the lifecycle (src/server/lifecycle.ts), where the server modules register their shutdown hooks,
// and the front door, which the app hands over when Next.js starts it.
const processState = (globalThis[Symbol.for("svc.process-state")] ??= {});
const lifecycle = (processState.lifecycle ??= {
  draining: false,
  hooks: { stop: new Set(), flush: new Set(), close: new Set() },
});

// Log lines shaped as the app's own (src/server/log.ts), which this plain-JavaScript file cannot import.
const LOG_LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const logLine = (level, msg, fields = {}) => {
  if (LOG_LEVELS[level] < (LOG_LEVELS[process.env.LOG_LEVEL] ?? LOG_LEVELS.info)) return;
  (level === "info" ? process.stdout : process.stderr).write(
    `${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`,
  );
};

/** An address in one spelling: IPv4-mapped IPv6 as IPv4, IPv6 compressed. */
function normalized(address) {
  try {
    return ipaddr.process(address.trim()).toString();
  } catch {
    return address.trim();
  }
}

/**
 * The socket's address, unless SVC_TRUSTED_PROXY_HOPS says N proxies stand in front: then the N-th
 * address from the right of X-Forwarded-For (each proxy appends the address it was called from).
 */
function clientAddress(request) {
  const socket = request.socket.remoteAddress ?? "";
  if (trustedHops === 0) return normalized(socket);
  const chain = String(request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return normalized(chain[chain.length - trustedHops] ?? socket);
}

// What a proxy tells of the request it received (the host, scheme and port the client used). Only
// a trusted proxy may say it: with no proxy configured a client's own X-Forwarded-* headers are
// dropped (Next.js then fills them from the socket), and behind N proxies the entry the outermost
// of them wrote is kept, as for the client's address.
const FORWARDED_HEADERS = ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"];

function trustForwarded(request) {
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (value === undefined) continue;
    if (trustedHops === 0) {
      delete request.headers[name];
      continue;
    }
    const chain = String(value)
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean);
    const kept = chain[Math.max(0, chain.length - trustedHops)];
    if (kept === undefined) delete request.headers[name];
    else request.headers[name] = kept;
  }
}

// Under load V8 pretenures the allocation sites of Next.js's per-request objects, so they wait for
// a full collection, which stalls every answer in flight; without pretenuring full collections come
// half as often (docs/decisions/006-no-pretenuring.md). The flag only chooses where new objects are
// placed, so setting it at run time, before Next.js is loaded, is safe.
v8.setFlagsFromString("--no-allocation-site-pretenuring");

// As `next start` and `next dev` do, before Next.js (and React) are loaded.
process.env.NODE_ENV ??= values.dev ? "development" : "production";
const { default: next } = await import("next");
const servedOverHttps = (process.env.AUTH_URL ?? "").startsWith("https://");
const isConsolePage = (url) => /^\/console(\/|\?|$)/.test(url);

/** The security headers: the static ones, the Content-Security-Policy (a fresh nonce for a console page) and, over HTTPS, HSTS. */
function secure(request, response) {
  for (const { key, value } of STATIC_SECURITY_HEADERS) response.setHeader(key, value);
  const nonce = isConsolePage(request.url ?? "") ? randomBytes(16).toString("base64") : undefined;
  const policy = contentSecurityPolicy({ nonce, dev: values.dev });
  // Next.js takes its scripts' nonce from the request's policy: this server's, never a client's.
  if (nonce) request.headers["content-security-policy"] = policy;
  else delete request.headers["content-security-policy"];
  response.setHeader("Content-Security-Policy", policy);
  if (servedOverHttps) response.setHeader("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
}

const app = next({ dev: values.dev, dir: process.cwd(), hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

// Responses not yet finished; while draining, each connection is closed after its answer.
const inFlight = new Set();
let drained = () => {};
const closeAfter = (response) => {
  if (!response.headersSent) response.setHeader("Connection", "close");
};

const server = http.createServer((request, response) => {
  inFlight.add(response);
  response.once("close", () => {
    inFlight.delete(response);
    if (inFlight.size === 0) drained();
  });
  if (lifecycle.draining) closeAfter(response);
  request.headers[CLIENT_ADDRESS_HEADER] = clientAddress(request);
  trustForwarded(request);
  secure(request, response);
  // The front door (src/server/rest/front-door.ts, handed over when Next.js starts the app)
  // answers what Next.js would answer in HTML or plain text under /api.
  if (processState.frontDoor?.(request, response)) return;
  void handle(request, response);
});
// Longer than the usual load balancer's idle timeout, so it never closes a connection under one.
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => {
  console.log(`Listening on http://${hostname ?? "localhost"}:${port}`);
});

const within = (promise, ms) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

async function runHooks(phase) {
  const hooks = [...lifecycle.hooks[phase]].map((hook) =>
    Promise.resolve()
      .then(hook)
      .catch((error) =>
        logLine("warn", `shutdown: a ${phase} hook failed`, { error: String(error?.message ?? error) }),
      ),
  );
  await within(Promise.all(hooks), HOOK_PHASE_LIMIT_MS);
}

async function shutdown(signal) {
  // Ctrl-C reaches both `npm start` and this process, which then hears it twice: once is enough.
  if (lifecycle.draining) return;
  lifecycle.draining = true;
  logLine("info", `${signal}: shutting down`, { in_flight: inFlight.size });
  // No new connections; idle kept-alive ones are closed, busy ones close after their answer.
  const closed = new Promise((resolve) => server.close(resolve));
  for (const response of inFlight) closeAfter(response);
  if (inFlight.size > 0) await within(new Promise((resolve) => (drained = resolve)), shutdownGraceMs);
  if (inFlight.size > 0)
    logLine("warn", "shutdown: requests still in flight after the grace period are cut", { in_flight: inFlight.size });
  server.closeAllConnections();
  await closed;
  await runHooks("stop");
  await runHooks("flush");
  await runHooks("close");
  logLine("info", "shut down");
  process.exit(0);
}

process.on("SIGTERM", () => void shutdown("SIGTERM"));
// Output gone (whatever read this process's stdout or stderr has exited): nothing it does can be
// seen any more, so it shuts down as on SIGTERM. Left unhandled, the failed write would reach Next.js's
// handler of uncaught errors, whose report of it fails the same way, without end.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => void shutdown("output closed"));
process.on("SIGINT", () => void shutdown("SIGINT"));
