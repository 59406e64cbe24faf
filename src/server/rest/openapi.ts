import "server-only";
import type { z } from "zod";
import packageJson from "../../../package.json";
import { ERRORS } from "@/lib/errors";
import { accessText, errorGroups, rateLimitsOf, spendsCredits, type ErrorGroup } from "./openapi-errors";
import { HEADERS, problemSchema, problemStatus, responseName, type HeaderName } from "./openapi-responses";
import { SCHEMA_REF, SchemaComponents, SharedComponents, type JsonSchema } from "./openapi-schemas";
import { ROUTES, type RestOperation } from "./registry";

export { accessText, errorGroups, type ErrorGroup } from "./openapi-errors";

// The OpenAPI 3.1 document, generated from the operation declarations and the zod schemas that
// validate requests, so the two cannot disagree. Integrators generate clients from it, so every
// reference points into `#/components/...`: schemas named with zod's `.meta({ id })`, the JSON value
// schema, the problem schema, and the parameters and error responses several operations share.

/** Tags in the order the reference shows them, each with what it groups. */
export const TAGS: Readonly<Record<string, string>> = {
  Operations:
    "Liveness and readiness probes for load balancers and orchestrators (no credentials), and metrics for Prometheus.",
  Identity: "Who the caller is, and what it may do.",
  "API keys":
    "Long-lived keys for integrations, sent as `X-API-KEY`. A key acts for the user it was issued to, within what that user holds; the raw key is shown once.",
  "Key budgets and verification":
    "A key's credits and its usage, and verifying a key presented to one of the platform's services in one call.",
  Organizations: "The tenants. Every organization-scoped resource sits under `/api/v1/organizations/{org_id}`.",
  Settings:
    "Settings in tiers: the platform's (tier 2) over each organization's (tier 3) over an orchestrator instance's config (tier 4), and the effective values that result.",
  "LLM configs":
    "An organization's own LLM provider keys. A key is stored encrypted and never returned, only its last 4 characters.",
  "Orchestrator instances": "An organization's AI assistant apps: framework, mode, configuration and plugin settings.",
  "Central points": "Stable API handles that map to an organization's orchestrator instances (pro tier and above).",
  Plugins: "Plugins, one record per version: the system catalog, and each organization's own.",
  Models: "The platform's catalog of models. Prices are exact decimals sent as strings.",
  Conversations:
    "Conversations and their message history. A conversation is private to its user unless the caller holds `svc:conversations:manage`.",
  Users: "User accounts, their passwords, organizations and linked sign-in identities.",
  Members: "An organization's members and the org roles they hold in it.",
  Invitations:
    "Invitations to join an organization with some of its roles, and the two doors of accepting one: signed in, or by creating an account. See docs/access.md.",
  "Service accounts":
    "Machine users of one organization: no password, no console sign-in, only the org roles granted there. Their API keys outlive the people who made them.",
  "Service account keys":
    "A service account's API keys: created (the raw key once), restricted, rolled with grace and revoked through its organization.",
  "Roles and permissions": "The permission catalog, roles (sets of permissions), and grants of roles to users.",
  "OAuth clients": "OAuth 2.0 client registrations. A confidential client's secret is shown once.",
  "Audit trail":
    "Every change through any door (REST, console, CLI), sign-ins and refused authorizations, each with who, what, where from and the fields it changed (secret fields by name only).",
  Webhooks:
    "Events out: endpoints that receive each committed change, system event or audit event they subscribe to, signed with Standard Webhooks, delivered at least once with retries.",
  "Organization webhooks":
    "An organization's own webhook endpoints: only that organization's events, managed by its admins.",
  Domains:
    "Domains an organization proves it holds with a DNS TXT record; with membership.domain_policy auto_join, people with a verified email there join at sign-in.",
  "Single sign-on":
    "An organization's own identity providers, OIDC or SAML 2.0: its people sign in through them at /api/sso/start (with an email or domain), join just in time, and with enforce on, console sessions made any other way do not reach it.",
  "Directory sync":
    "An organization's directory (Okta, Entra ID…) provisions its people and groups through the SCIM 2.0 service at /api/scim/v2 with a token made here; the organization's admins map its groups to org roles and read its latest requests.",
};

/** The RateLimit fields, on the answers of an operation that counts against a rate limit. */
const rateLimitHeaders = (route: RestOperation): HeaderName[] =>
  rateLimitsOf(route).length > 0 ? ["RateLimit-Policy", "RateLimit"] : [];

class DocumentBuilder {
  readonly schemas = new SchemaComponents({ Problem: problemSchema() });
  readonly parameters = new SharedComponents("parameters");
  readonly responses = new SharedComponents("responses");
  private readonly headersUsed = new Set<HeaderName>();

  header(name: HeaderName) {
    this.headersUsed.add(name);
    return { $ref: `#/components/headers/${name}` };
  }

  headers() {
    return Object.fromEntries(Object.entries(HEADERS).filter(([name]) => this.headersUsed.has(name as HeaderName)));
  }

  parametersOf(schema: z.ZodType | undefined, location: "path" | "query"): JsonSchema[] {
    if (!schema) return [];
    const json = this.schemas.convert(schema, "input") as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    return Object.entries(json.properties ?? {}).map(([name, { description, ...property }]) =>
      this.parameters.use(
        {
          name,
          in: location,
          required: location === "path" || (json.required ?? []).includes(name),
          ...(typeof description === "string" ? { description } : {}),
          schema: property,
        },
        name,
      ),
    );
  }

  /** References to the headers named, which the document then defines. */
  private headersNamed(names: Iterable<HeaderName>): Record<string, JsonSchema> {
    return Object.fromEntries([...new Set(names)].map((name) => [name, this.header(name)]));
  }

  errorResponse(route: RestOperation, { status, codes }: ErrorGroup): JsonSchema {
    return this.responses.use(
      {
        description: codes.map((code) => `\`${code}\`: ${ERRORS[code].note}`).join("\n\n"),
        headers: this.headersNamed([
          "X-Request-Id",
          ...rateLimitHeaders(route),
          ...(codes.includes("credits_exhausted") ? (["Credits-Remaining"] as const) : []),
          ...codes.flatMap((code) => ERRORS[code].headers),
        ]),
        content: {
          "application/problem+json": {
            schema: {
              allOf: [
                { $ref: `${SCHEMA_REF}Problem` },
                {
                  type: "object",
                  properties: { status: problemStatus(status), code: { type: "string", enum: codes } },
                },
              ],
            },
          },
        },
      },
      responseName(codes),
    );
  }

  operation(route: RestOperation, response: JsonSchema) {
    const status = route.status ?? 200;
    return {
      operationId: route.id,
      summary: route.summary,
      description: [route.description, accessText(route.access)].filter(Boolean).join("\n\n"),
      tags: [route.tag],
      ...(route.access === "public"
        ? { security: [] }
        : route.access === "metrics"
          ? { security: [{ metricsToken: [] }] }
          : {}),
      ...(typeof route.access === "object" ? { "x-required-permission": route.access.permission } : {}),
      parameters: [...this.parametersOf(route.params, "path"), ...this.parametersOf(route.query, "query")],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: this.schemas.convert(route.body, "input") } },
            },
          }
        : {}),
      responses: {
        [String(status)]: {
          description: route.secret
            ? "Holds a secret, shown this once: sent with `Cache-Control: no-store`."
            : status === 201
              ? "Created."
              : status === 202
                ? "Accepted: done shortly, in the background."
                : "OK.",
          headers: this.headersNamed([
            "X-Request-Id",
            ...rateLimitHeaders(route),
            ...(spendsCredits(route) ? (["Credits-Remaining"] as const) : []),
            ...(route.created ? (["Location"] as const) : []),
            ...(route.secret ? (["Cache-Control"] as const) : []),
          ]),
          content: { [route.produces ?? "application/json"]: { schema: response } },
        },
        ...Object.fromEntries(
          errorGroups(route).map((group) => [String(group.status), this.errorResponse(route, group)]),
        ),
      },
    };
  }
}

export function openApiDocument() {
  const builder = new DocumentBuilder();
  const missing = ROUTES.map((route) => route.tag).filter((tag) => !Object.hasOwn(TAGS, tag));
  if (missing.length > 0) throw new Error(`Describe these tags in TAGS: ${[...new Set(missing)].join(", ")}`);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const response = builder.schemas.convert(route.response, "output");
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: builder.operation(route, response) };
  }
  const tags = new Set(ROUTES.map((route) => route.tag));
  return {
    openapi: "3.1.0",
    info: {
      title: "svc control plane API",
      version: packageJson.version,
      description: [
        "REST API of the svc control plane: organizations, their orchestrator instances and settings, users, roles and API keys.",
        'Authenticate with an API key in the `X-API-KEY` header (never `Authorization: Bearer`), or with the console\'s session cookie. Bodies are JSON with snake_case fields. Lists answer `{"data": [...], "next_cursor": ...}`: pass `next_cursor` back as `cursor` until it is null. Errors are RFC 9457 problem details with a stable `code`.',
      ].join("\n\n"),
      // The service is not published under an open-source license.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // Integrators outside the platform call it: an API for others, not an internal one.
    servers: [{ url: "/", "x-internal": false }],
    security: [{ apiKey: [] }, { session: [] }],
    tags: Object.entries(TAGS)
      .filter(([name]) => tags.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: builder.schemas.schemas,
      parameters: builder.parameters.components(),
      responses: builder.responses.components(),
      headers: builder.headers(),
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-KEY",
          description: "An API key: `cdk_` and 49 more characters, shown once when it is created.",
        },
        metricsToken: {
          type: "http",
          scheme: "bearer",
          description: "The token set in `SVC_METRICS_TOKEN`, for `GET /api/metrics` only.",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "__Host-authjs.session-token",
          description: "The session of a user signed in to the console (an HttpOnly cookie, sent over HTTPS only).",
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
