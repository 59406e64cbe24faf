import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { exampleOf } from "@/app/api/docs/_components/model";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, startApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createSysAdmin, createUser, grant, join, PASSWORD, roleId, seedRoles } from "@/test/fixtures";
import { exampleBody, referenceOf } from "@/test/requests";
import { boundsOf, unboundedIn, withValueAt, type Bound } from "@/test/schema-bounds";
import { ROUTES, type RestOperation } from "./registry";
import { readContext } from "@/server/db/context";

// Generated from the route registry: every bound the OpenAPI document states for a request field —
// a path or query parameter, or a body field at any depth — holds as the server enforces it. A value
// one past the bound answers 400 `validation_failed` naming the field; a value right at the bound is
// not refused for its length (it is accepted, or refused for something else, such as a missing
// resource). New operations and fields are covered without anyone remembering to.

const { client, url } = await testDatabase();
await seedRoles(client);
process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const app = await startApp(url, { LOG_LEVEL: "warn" });

// A sys_admin's console session may call every operation, sessions' own included, and no rate
// limit counts its calls. Real resources in the path let a value at the bound get past the lookups.
const admin = await createSysAdmin(client);
const session = new Browserless(app.baseUrl);
if (!(await session.signIn(admin.username, PASSWORD))) throw new Error("the sys_admin did not sign in");
const org = await createOrg(client);
await client.organization.update({ where: { id: org.id }, data: { subscription_tier: "enterprise" } });
const instance = await client.orchestratorInstance.create({
  data: { org_id: org.id, name: "bot", framework_type: "langgraph", mode: "supervisor" },
});
const user = await createUser(client);
await join(client, user.id, org.id);
const role = await client.role.create({ data: { name: "bounds", scope: "org" } });
const key = await createApiKey(readContext(systemActor("test")), admin.id, {
  name: "bounds",
  scopes: [],
  expires_at: null,
});
const IDS: Readonly<Record<string, string>> = {
  org_id: org.id,
  orchestrator_id: instance.id,
  config_id: (
    await client.organizationLlmConfig.create({
      data: { org_id: org.id, name: "c", provider: "openai", api_key: "v1:x:y:z" },
    })
  ).id,
  central_point_id: (
    await client.centralPoint.create({
      data: { org_id: org.id, orchestrator_id: instance.id, name: "cp" },
    })
  ).id,
  conversation_id: (
    await client.conversation.create({
      data: { org_id: org.id, user_id: user.id, instance_id: instance.id },
    })
  ).id,
  plugin_id: (
    await client.plugin.create({
      data: { source: "org", org_id: org.id, pid: "com.bounds.plugin", version: "1.0.0", name: "p", is_latest: true },
    })
  ).id,
  user_id: user.id,
  role_id: role.id,
  key_id: key.id,
  client_id: (await client.oauth2Client.create({ data: { client_id: "svc_bounds", name: "c", client_type: "public" } }))
    .client_id,
  model_config_id: String(
    (await client.providerModelConfig.create({ data: { provider: "openai", model_id: "m" } })).id,
  ),
  grant_id: String((await grant(client, user.id, await roleId(client, "org_member"), org.id)).id),
  key: "feature.bounds",
  ...(await (async () => {
    const endpoint = await client.webhookEndpoint.create({
      data: { org_id: org.id, url: "https://hooks.bounds.example/x", event_types: ["*"], secret_encrypted: "x" },
    });
    const message = await client.webhookMessage.create({
      data: { id: randomUUID(), event_type: "webhook.test", org_id: org.id, payload: {} },
    });
    const delivery = await client.webhookDelivery.create({
      data: { message_id: message.id, endpoint_id: endpoint.id },
    });
    return { endpoint_id: endpoint.id, delivery_id: delivery.id };
  })()),
};

type Location = "params" | "query" | "body";

interface Case {
  route: RestOperation;
  location: Location;
  bound: Bound;
}

/** The field's path in a problem's `errors`: body fields alone, parameters under `params.` and `query.`. */
const errorPath = ({ location, bound }: Case) =>
  [...(location === "body" ? [] : [location]), ...bound.path].map(String).join(".");

const schemaAt = (route: RestOperation, location: Location): z.ZodType | undefined => route[location];

/** The request's three parts, with `value` at the case's field. */
function inputFor({ route, location, bound }: Case, value: unknown): Record<Location, unknown> {
  const reference = referenceOf(route);
  const parameters = (where: string, base: (name: string) => unknown) =>
    Object.fromEntries(
      reference.parameters
        .filter((p) => p.in === where && (where === "path" || p.required))
        .map((p) => [p.name, base(p.name) ?? p.example]),
    );
  const input: Record<Location, unknown> = {
    params: parameters("path", (name) => IDS[name]),
    query: parameters("query", () => undefined),
    body: exampleBody(route, IDS),
  };
  // Parameters travel as text.
  input[location] = withValueAt(input[location], bound.path, location === "body" ? value : String(value));
  return input;
}

/**
 * The values the case sends: the first pair whose value at the bound the route's schema takes at
 * the field (else the first pair), and its value past the bound; `exact` when the pair has one, so
 * that the value breaks the bound (zod reports every check a value fails, the bound's among them).
 */
function valuesFor(test: Case): { at: unknown; past: unknown; exact: boolean } {
  const schema = schemaAt(test.route, test.location);
  const field = test.bound.path.join(".");
  const valid = test.bound.pairs.find(({ at }) => {
    const issues = schema?.safeParse(inputFor(test, at)[test.location]).error?.issues ?? [];
    return !issues.some((issue) => issue.path.join(".") === field);
  });
  const pair = valid ?? test.bound.pairs[0];
  return pair?.past === undefined
    ? { at: pair?.at, past: test.bound.past, exact: false }
    : { at: pair.at, past: pair.past, exact: true };
}

async function send(test: Case, value: unknown) {
  const { route } = test;
  const { params, query, body } = inputFor(test, value);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String((params as Record<string, unknown>)[name])),
  );
  const search = new URLSearchParams(query as Record<string, string>).toString();
  const response = await session.fetch(`${path}${search ? `?${search}` : ""}`, {
    method: route.method,
    headers: { "content-type": "application/json" },
    body: route.body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  const problem = (response.headers.get("content-type") ?? "").includes("problem")
    ? (JSON.parse(text) as { code: string; errors?: { path: string; message: string }[] })
    : undefined;
  return { status: response.status, problem };
}

/** What zod and the input checks say of a value past a bound (common.ts, raw-input.ts). */
const BOUND_MESSAGE = /^(its name )?(must (be|list|hold) at (most|least)|must be (less|greater) than|is beyond)/;

const CASES: Case[] = ROUTES.flatMap((route) => {
  const reference = referenceOf(route);
  const parameterCases = (location: "params" | "query", where: string) =>
    reference.parameters
      .filter((p) => p.in === where)
      .flatMap((p) => boundsOf(p.schema, exampleOf, [p.name]).map((bound) => ({ route, location, bound })));
  const body = reference.requestBody?.schema;
  return [
    ...parameterCases("params", "path"),
    ...parameterCases("query", "query"),
    ...(body ? boundsOf(body, exampleOf).map((bound) => ({ route, location: "body" as const, bound })) : []),
  ];
});

const name = (test: Case) =>
  `${test.route.method} ${test.route.path} ${errorPath(test)} (${test.bound.keyword} ${test.bound.limit})`;

describe("the bounds the OpenAPI document states for requests", () => {
  it("are found for every operation that takes input, and for fields at every depth", () => {
    const takingInput = ROUTES.filter((r) => r.params || r.query || r.body);
    expect(new Set(CASES.map((c) => c.route.id))).toEqual(new Set(takingInput.map((r) => r.id)));
    // A field that states no bound would have no case here: a bound taken off a schema fails now.
    const unbounded = ROUTES.flatMap((route) => {
      const { parameters, requestBody } = referenceOf(route);
      return [
        ...parameters.flatMap((p) => unboundedIn(p.schema, `${route.id} ${p.in}.${p.name}`)),
        ...(requestBody ? unboundedIn(requestBody.schema, `${route.id} body`) : []),
      ];
    });
    expect(unbounded).toEqual([]);
    expect(CASES.map(name)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^POST \/api\/admin\/users\/api-keys scopes \(maxItems 64\)$/),
        expect.stringMatching(/^POST \/api\/admin\/users\/api-keys scopes\.0 \(maxLength 255\)$/),
        expect.stringMatching(/ messages\.0\.content \(maxLength 1000000\)$/),
        expect.stringMatching(/^GET \/api\/v1\/organizations query\.limit \(maximum 100\)$/),
        expect.stringMatching(/ params\.org_id \(maxLength 36\)$/),
        expect.stringMatching(/ config \(propertyNames\.maxLength 255\)$/),
      ]),
    );
  });

  it.each(CASES.map((test) => [name(test), test] as const))("%s", async (_name, test) => {
    const field = errorPath(test);
    const values = valuesFor(test);
    const named = (path: string) =>
      path === field || (test.bound.keyword === "propertyNames.maxLength" && path.startsWith(`${field}.`));
    const forItsBound = (errors: { path: string; message: string }[] = []) =>
      errors.filter((e) => named(e.path) && BOUND_MESSAGE.test(e.message));

    const past = await send(test, values.past);
    expect(past.status, `one past the bound: ${JSON.stringify(past.problem)}`).toBe(400);
    expect(past.problem?.code).toBe("validation_failed");
    // A value that breaks the bound alone is refused for it; one whose shape has no longer form (a
    // UUID, a CIDR) is refused for its shape, which is the bound.
    const refused = values.exact
      ? forItsBound(past.problem?.errors)
      : (past.problem?.errors ?? []).filter((e) => named(e.path));
    expect(refused, `one past the bound: ${JSON.stringify(past.problem?.errors)}`).not.toEqual([]);

    const at = await send(test, values.at);
    expect(at.status, `at the bound: ${JSON.stringify(at.problem)}`).toBeLessThan(500);
    expect(forItsBound(at.problem?.errors), "at the bound, not refused for it").toEqual([]);
    // Nor by the database: it refuses a value its column cannot hold naming no field, as it would
    // a bound the document states longer than the column.
    if (at.problem?.code === "validation_failed")
      expect(at.problem.errors ?? [], `at the bound: ${JSON.stringify(at.problem)}`).not.toEqual([]);
  });
});
