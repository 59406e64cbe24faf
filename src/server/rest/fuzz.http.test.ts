import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { createLlmConfig } from "@/server/services/llm-configs/service";
import { TEST_ENCRYPTION_KEYS } from "@/test/app";
import { appOnOwnDatabase, consoleSession, keyOfEverything } from "@/test/suite";
import { createMember, createSysAdmin, createUser, roleId } from "@/test/fixtures";
import { arbitraryOf, type JsonSchema } from "@/test/schema-arbitrary";
import { ROUTES, type RestOperation } from "./registry";
import { readContext } from "@/server/db/context";

// A fuzzer generated from the served /api/openapi.json: every operation gets hostile path ids,
// queries and bodies (shaped like its zod schemas, then mutated) as a console session, with an API
// key and anonymously. Every answer must be 2xx or a 4xx problem+json, carry X-Request-Id and come
// within 3 s of the fuzzer's own running time (no request may hold the server), and the app must
// stay healthy. FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> sets the cases per operation and caller
// (default 12).

const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const LIVENESS_MS = 3000;

// Provider keys seeded below are encrypted under the app's keys, so the app can read them back.
process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
const { client, app } = await appOnOwnDatabase({ LOG_LEVEL: "warn" });

// Who calls: a sys_admin's console session and API key, and nobody.
const admin = await createSysAdmin(client);
const key = await keyOfEverything(admin.id, "fuzz");
const browser = await consoleSession(app, admin.username);

// Real ids of someone else's resources, so hostile input also reaches the code behind the lookups.
const { user: member, org } = await createMember(client);
await client.organization.update({ where: { id: org.id }, data: { subscription_tier: "pro" } });
const other = await createUser(client);
const otherKey = await createApiKey(readContext(systemActor("test")), member.id, {
  name: "other",
  scopes: ["svc:models:read"],
  expires_at: null,
});
const instance = await client.orchestratorInstance.create({
  data: { org_id: org.id, name: "bot", framework_type: "langgraph", mode: "supervisor" },
});
const llmConfig = await createLlmConfig(readContext(systemActor("test")), org.id, {
  name: "c",
  provider: "openai",
  api_key: "sk-fuzz-12345678",
  additional_config: {},
  is_enabled: true,
});
const point = await client.centralPoint.create({ data: { org_id: org.id, orchestrator_id: instance.id, name: "cp" } });
const plugin = await client.plugin.create({
  data: { source: "org", org_id: org.id, pid: "com.fuzz.plugin", version: "1.0.0", name: "p", is_latest: true },
});
const conversation = await client.conversation.create({
  data: { org_id: org.id, user_id: member.id, instance_id: instance.id, title: "t" },
});
const model = await client.providerModelConfig.create({ data: { provider: "openai", model_id: "fuzz-model" } });
const REAL_IDS = [
  org.id,
  member.id,
  other.id,
  otherKey.id,
  instance.id,
  llmConfig.id,
  point.id,
  plugin.id,
  conversation.id,
  String(model.id),
  await roleId(client, "org_member"),
  "feature.flag",
];

const HOSTILE_STRINGS = [
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "😀".repeat(50),
  "x".repeat(100_000),
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "\u202etxt.exe",
  "NaN",
  "-1",
  "true",
  "null",
  "__proto__",
  " \t\n",
  "ＡＢＣ",
];

/** Percent-encoding of any string; a lone surrogate becomes the bytes a careless encoder writes for it. */
const encode = (text: string) =>
  text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/g, (unit) => {
    const code = unit.charCodeAt(0);
    if (unit.length === 2 || code < 0xd800 || code > 0xdfff) return encodeURIComponent(unit);
    return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
      .map((b) => `%${b.toString(16).toUpperCase()}`)
      .join("");
  });

// Path segments an attacker sends: ids, garbage, traversal, malformed percent-encoding (raw).
const hostileSegment = fc.oneof(
  fc.constantFrom(...REAL_IDS).map(encode),
  fc.uuid().map(encode),
  fc
    .oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(...HOSTILE_STRINGS).map((s) => s.slice(0, 100)),
    )
    .map(encode),
  fc.constantFrom(
    "%00",
    "a%00b",
    "%ED%A0%80",
    "%zz",
    "%",
    "%C0%AF",
    "%2F",
    "%2e%2e",
    "..",
    ".",
    "0",
    "-1",
    "99999999999999999999",
    "1e400",
    "NaN",
    "%27%20OR%201%3D1%20--",
    "x".repeat(3000),
  ),
);

const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 300 }));

// Numbers JSON text can hold but JavaScript cannot keep exact (or at all), written raw into the body.
const RAW_NUMBERS = ["9007199254740993", "12345678901234567890", "1e400", "-1e400", "-0", "1e-400", "0.1e1", "1E308"];
const rawNumber = fc.constantFrom(...RAW_NUMBERS);
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/** A body as sent: its text and media type. */
interface Body {
  text: string;
  type: string | undefined;
}

/** A hostile body: the schema-shaped value mutated, or something that is not the body at all. */
function bodyArbitrary(schema: JsonSchema | undefined): fc.Arbitrary<Body> {
  const shaped = schema ? arbitraryOf(schema, schema) : fc.jsonValue({ maxDepth: 2 });
  const asObject = shaped.map((value) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value },
  );
  const json =
    (type = "application/json") =>
    (text: string): Body => ({ text, type });
  const declared = Object.keys((schema?.properties as object | undefined) ?? {});
  const fieldNames = declared.length > 0 ? declared : ["extra"];
  // A field of the value (an existing one, or a new name) given `replacement` as raw JSON text.
  const withField = (replacement: fc.Arbitrary<string>) =>
    fc
      .tuple(asObject, fc.oneof(fc.constantFrom(...fieldNames), hostileString), replacement)
      .map(([value, field, raw]) => {
        const marker = "\u{10FFFF}raw\u{10FFFF}";
        return JSON.stringify({ ...value, [field]: marker }).replace(JSON.stringify(marker), raw);
      });
  return fc.oneof(
    // Shaped like the schema: mostly refused for details, sometimes accepted.
    shaped.map((value) => JSON.stringify(value)).map(json()),
    // A required field missing, an unknown field, a field of the wrong type or a hostile string.
    asObject
      .chain((value) =>
        fc.constantFrom(...Object.keys(value), "absent").map((drop) => JSON.stringify({ ...value, [drop]: undefined })),
      )
      .map(json()),
    withField(fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v))).map(json()),
    withField(hostileString.map((s) => JSON.stringify(s))).map(json()),
    withField(rawNumber).map(json()),
    // Nesting: past the cap, far past it (a 20,000-deep array), within it.
    withField(fc.constantFrom(nested(70), nested(20_000), nested(60), `{"a":${nested(64)}}`)).map(json()),
    // Not this body at all.
    fc
      .constantFrom(
        "{not json",
        "",
        "null",
        "[]",
        "42",
        '"text"',
        '{"a":1,"a":2}',
        "\ufeff{}",
        `{"__proto__":{"admin":true}}`,
        nested(200_000),
      )
      .map(json()),
    // The wrong media type, or none.
    shaped
      .map((value) => JSON.stringify(value))
      .chain((text) =>
        fc.constantFrom<Body>(
          { text, type: "text/plain" },
          { text, type: undefined },
          { text, type: "application/x-www-form-urlencoded" },
          { text, type: "application/json; charset=utf-16" },
        ),
      ),
    // Over the 1 MiB limit.
    fc.constant<Body>({ text: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }), type: "application/json" }),
  );
}

/** The operations the served document lists, each with its registry entry and query parameter names. */
interface FuzzedOperation {
  route: RestOperation;
  queryNames: string[];
  querySchema: JsonSchema | undefined;
  bodySchema: JsonSchema | undefined;
}

async function servedOperations(): Promise<FuzzedOperation[]> {
  const document = (await (await app.fetch("/api/openapi.json")).json()) as {
    paths: Record<string, Record<string, { operationId?: string; parameters?: { name?: string; in?: string }[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const route = ROUTES.find((r) => r.path === path && r.method === method.toUpperCase());
      if (!route) throw new Error(`The document lists ${method.toUpperCase()} ${path}, which no operation serves`);
      const fromDocument = (operation.parameters ?? [])
        .filter((p) => p.in === "query" && typeof p.name === "string")
        .map((p) => p.name as string);
      const toSchema = (schema: z.ZodType | undefined) =>
        schema ? (z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema) : undefined;
      return {
        route,
        queryNames: [...new Set([...fromDocument, ...Object.keys(route.query?.shape ?? {})])],
        querySchema: toSchema(route.query),
        bodySchema: toSchema(route.body),
      };
    }),
  );
}

/** A query string of hostile values for the operation's parameters (repeated ones too) and unknown ones. */
function queryArbitrary(operation: FuzzedOperation): fc.Arbitrary<string> {
  const properties = (operation.querySchema?.properties ?? {}) as Record<string, unknown>;
  const value = (name: string) =>
    fc.oneof(
      arbitraryOf(properties[name], operation.querySchema ?? {}).map((v) =>
        typeof v === "string" ? v : (JSON.stringify(v) ?? ""),
      ),
      // Short enough that the whole request line stays under Node.js's 16 KiB header limit.
      hostileString.map((s) => s.slice(0, 100)),
      fc.constantFrom("true", "false", "0", "-1", "101", "1e400", "99999999999999999999"),
    );
  const pairs = fc.array(
    fc.oneof(
      fc
        .constantFrom(...operation.queryNames, "unknown_param")
        .chain((name) => value(name).map((v) => `${encode(name)}=${encode(v)}`)),
      fc.constantFrom("pid=%00", "limit=%ED%A0%80", "cursor=%zz", "q=%", "include_deleted", "=x", "limit=1&limit=2"),
    ),
    { maxLength: 4 },
  );
  return pairs.map((list) => (list.length > 0 ? `?${list.join("&")}` : ""));
}

type Caller = "session" | "key" | "anonymous";

function headersFor(caller: Caller, body: Body | undefined): Record<string, string> {
  const headers: Record<string, string> = body?.type ? { "content-type": body.type } : {};
  if (caller === "key") headers["x-api-key"] = key.raw_key;
  if (caller === "session")
    Object.assign(headers, { cookie: browser.cookieHeader(), origin: app.baseUrl, "sec-fetch-site": "same-origin" });
  return headers;
}

// The liveness bound counts this process's running time only. On a busy machine the fuzzer's own
// event loop can be held for seconds (generating a large body, collecting garbage, not scheduled),
// and an answer that came meanwhile waits unread: that time is the fuzzer's, not the server's
// silence. Each tick adds at most two intervals; a stall is named in a timeout's message.
const TICK_MS = 50;
let runningMs = 0;
let lastTick = performance.now();
const stalls: { end: number; ms: number }[] = [];
const deadlines = new Map<AbortController, number>();
setInterval(() => {
  const now = performance.now();
  const elapsed = now - lastTick;
  lastTick = now;
  runningMs += Math.min(elapsed, 2 * TICK_MS);
  if (elapsed > 10 * TICK_MS) stalls.push({ end: now, ms: Math.round(elapsed) });
  for (const [controller, deadline] of deadlines) {
    if (runningMs < deadline) continue;
    deadlines.delete(controller);
    controller.abort(new DOMException(`no answer within ${LIVENESS_MS} ms`, "TimeoutError"));
  }
}, TICK_MS).unref();
const stalledSince = (started: number) =>
  stalls.filter((stall) => stall.end > started).reduce((most, stall) => Math.max(most, stall.ms), 0);

let requests = 0;
let slowest = { ms: 0, sent: "" };

/** Sends one hostile request and checks the answer; a failure says what was sent. */
async function probe(caller: Caller, method: string, target: string, body: Body | undefined): Promise<void> {
  requests += 1;
  const sent = `${caller} ${method} ${target.slice(0, 300)} ${body ? `(${body.type ?? "no type"}) ${body.text.slice(0, 200)}` : ""}`;
  let response: Response;
  const started = performance.now();
  const liveness = new AbortController();
  deadlines.set(liveness, runningMs + LIVENESS_MS);
  let text: string;
  try {
    // The answer is checked on arrival: an error is a problem document with its status and code.
    response = await app.fetch(target, {
      method,
      headers: headersFor(caller, body),
      body: body?.text,
      signal: liveness.signal,
    });
    text = await response.text();
  } catch (error) {
    const { name, message } = error as Error;
    if (name === "TimeoutError" || name === "AbortError") {
      const stalled = stalledSince(started);
      const own = stalled > 0 ? `; this process was also held for ${stalled} ms` : "";
      throw new Error(`no answer within ${LIVENESS_MS} ms of this process's running time (${name}${own}) to ${sent}`);
    }
    throw new Error(`${message} to ${sent}`);
  } finally {
    deadlines.delete(liveness);
  }
  const ms = performance.now() - started;
  if (ms > slowest.ms) slowest = { ms, sent };
  if (response.status >= 500) throw new Error(`${response.status} to ${sent}: ${text.slice(0, 300)}`);
  if (!response.headers.get("x-request-id")) throw new Error(`no X-Request-Id on ${response.status} to ${sent}`);
}

const operations = await servedOperations();

// Each operation's hostile targets and bodies. Built here, before any request is in flight: building
// an arbitrary can take this process's CPU for a while, and a request in flight meanwhile would
// have its answer go unread past the liveness bound.
const plans = operations.map((operation) => {
  const { route } = operation;
  const target = fc
    .tuple(fc.array(hostileSegment, { minLength: 3, maxLength: 3 }), queryArbitrary(operation))
    .map(([segments, query]) => {
      let next = 0;
      return `${route.path.replace(/\{[a-z_]+\}/g, () => segments[next++] ?? "x")}${query}`;
    });
  const body: fc.Arbitrary<Body | null> =
    route.method === "GET" ? fc.constant(null) : fc.option(bodyArbitrary(operation.bodySchema), { freq: 8 });
  return { route, target, body };
});

// Next.js loads a route's code on its first request, which on a busy machine can take seconds: the
// liveness bound is about requests to a running server, so each route is loaded first.
for (const caller of ["session", "key", "anonymous"] as const) {
  for (const { route } of operations) {
    await app.fetch(route.path.replace(/\{[a-z_]+\}/g, org.id), {
      method: route.method,
      headers: headersFor(caller, undefined),
    });
  }
}

describe("fuzzing every operation of /api/openapi.json", () => {
  it("lists every operation of the registry", () => {
    expect(operations.map((o) => o.route.id).sort()).toEqual(ROUTES.map((r) => r.id).sort());
  });

  it("never answers a hostile request with a 5xx, a non-problem error or silence", async () => {
    const fuzz = async (caller: Caller) => {
      for (const { route, target, body } of plans) {
        await fc.assert(
          fc.asyncProperty(target, body, (path, sent) => probe(caller, route.method, path, sent ?? undefined)),
          { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true },
        );
      }
    };
    // The three callers at once: concurrent requests are part of what the server must take.
    await Promise.all((["session", "key", "anonymous"] as const).map(fuzz));
  }, 300_000);

  it(`sent at least ${3 * ROUTES.length * RUNS_PER_OPERATION} requests, and left the app healthy`, async () => {
    expect(requests).toBeGreaterThanOrEqual(3 * ROUTES.length * RUNS_PER_OPERATION);
    console.log(
      `fuzzer: ${requests} requests; slowest answer ${Math.round(slowest.ms)} ms, to ${slowest.sent.slice(0, 160)}`,
    );
    expect((await app.fetch("/api/health", { signal: AbortSignal.timeout(LIVENESS_MS) })).status).toBe(200);
    expect(app.logs()).not.toContain("unhandled error");
  });
});
