import "server-only";
import { prometheusContentType } from "prom-client";
import { z } from "zod";
import { ALL_PERMISSIONS } from "@/lib/permissions";
import {
  allowedCidrsSchema,
  allowedOrgIdsSchema,
  apiKeySchema,
  metaSchema,
  rateLimitSchema,
} from "@/lib/schemas/api-keys";
import { LENGTH, list, moment, text } from "@/lib/schemas/common";
import { MAX_ORGANIZATIONS_PER_USER } from "@/lib/schemas/organizations";
import { userSummarySchema } from "@/lib/schemas/users";
import type { UserActor } from "@/server/auth/actor";
import { effectivePermissions } from "@/server/auth/authorize";
import { invalidationRoute, listenForInvalidations, UNHEARD_CACHE_MS } from "@/server/auth/invalidation";
import { databaseAnswers } from "@/server/db/client";
import { draining } from "@/server/lifecycle";
import { metrics } from "@/server/metrics";
import { DomainError } from "@/server/errors";
import { defineOperation, immutableAnswer } from "./operation";

// Liveness, readiness, metrics, and who the caller is. REST only: the console has no use for them.

const status = z.object({ status: z.literal("ok") });

const readiness = z.object({
  status: z.literal("ok"),
  invalidation: z
    .enum(["postgres", "redis", "none", "starting"])
    .describe(
      "How revocations, deleted users and ended sessions made on other processes reach this one: `postgres` (LISTEN on a session connection), `redis` (pub/sub), `starting` (not known yet), `none` (this process cannot hear them and keeps cached keys, grants and accounts at most 5 s).",
    ),
  warning: text(LENGTH.LONG).optional().describe("What an operator should fix, when anything."),
});

// Readiness answers within this, whatever the database does (a probe usually gives up after 2 s).
const READY_DEADLINE_MS = 1_500;

const permissions = list(text(), ALL_PERMISSIONS.length);

const meSchema = z.object({
  user: userSummarySchema,
  auth: z.enum(["api_key", "session"]),
  key: z
    .object({
      id: z.uuid(),
      key_prefix: apiKeySchema.shape.key_prefix,
      expires_at: moment.nullable(),
      rate_limit: rateLimitSchema,
      allowed_org_ids: allowedOrgIdsSchema,
      allowed_cidrs: allowedCidrsSchema,
      meta: metaSchema,
    })
    .nullable()
    .describe(
      "The key the request came with (null for a session). `rate_limit` is the limit it is held to: its own, else the platform default; `allowed_org_ids` and `allowed_cidrs` its restrictions (null: none); `meta` its owner's data about it. Its credits are in the answer's `Credits-Remaining` field.",
    ),
  permissions: permissions.describe("Effective permissions held globally."),
  organizations: list(z.object({ id: z.uuid(), name: text(), permissions }), MAX_ORGANIZATIONS_PER_USER),
});

type Me = z.output<typeof meSchema>;

// The answer depends on the actor alone, and a key's or a session's actor is cached, replaced when
// the key, its owner or their grants change: it is built once per actor and frozen, so that invoke()
// encodes it once and the REST door writes its JSON once.
const meByActor = new WeakMap<UserActor, Me>();

function meOf(user: UserActor): Me {
  let me = meByActor.get(user);
  if (me) return me;
  const { global, organizations } = effectivePermissions(user);
  me = immutableAnswer({
    user: { id: user.userId, username: user.username, display_name: user.displayName },
    auth: user.kind === "api_key" ? "api_key" : "session",
    key:
      user.kind === "api_key"
        ? {
            id: user.key.id,
            key_prefix: user.key.prefix,
            // Copies of the actor's own objects, which freezing the answer must leave alone.
            expires_at: user.key.expiresAt && new Date(user.key.expiresAt),
            rate_limit: { ...user.key.rateLimit },
            allowed_org_ids: user.key.allowedOrgIds ? [...user.key.allowedOrgIds] : null,
            allowed_cidrs: user.key.allowedCidrs ? [...user.key.allowedCidrs] : null,
            meta: structuredClone(user.key.meta),
          }
        : null,
    permissions: global,
    organizations,
  } satisfies Me);
  meByActor.set(user, me);
  return me;
}

export const systemOperations = {
  health: defineOperation({
    id: "health",
    method: "GET",
    path: "/api/health",
    console: false,
    tag: "Operations",
    summary: "Liveness",
    description: "Answers without credentials and without touching the database.",
    access: "public",
    response: status,
    handler: () => ({ status: "ok" as const }),
  }),
  ready: defineOperation({
    id: "ready",
    method: "GET",
    path: "/api/ready",
    console: false,
    tag: "Operations",
    summary: "Readiness",
    description:
      "200 while the database answers; 503 with Retry-After when it does not answer within 1.5 s, and from the moment the process starts shutting down. The body says how invalidations made on other processes reach this one.",
    access: "public",
    response: readiness,
    errors: ["unavailable"],
    handler: async () => {
      if (draining()) throw new DomainError("unavailable", "The app is shutting down.");
      if (!(await databaseAnswers(READY_DEADLINE_MS)))
        throw new DomainError("unavailable", "The database does not answer.");
      listenForInvalidations();
      const invalidation = invalidationRoute();
      return invalidation === "none"
        ? {
            status: "ok" as const,
            invalidation,
            warning: `This process cannot hear other processes' revocations (DATABASE_URL is a transaction pooler, or the embedded database): behind a pooler, set DATABASE_DIRECT_URL or REDIS_URL. Cached keys, grants and accounts are kept at most ${UNHEARD_CACHE_MS / 1000} s.`,
          }
        : { status: "ok" as const, invalidation };
    },
  }),
  metrics: defineOperation({
    id: "getMetrics",
    method: "GET",
    path: "/api/metrics",
    console: false,
    tag: "Operations",
    summary: "Metrics, in Prometheus' text format",
    description:
      "This process's metrics for a Prometheus scraper: REST requests by route template, method and status, with latency histograms; API key authentications by outcome; requests refused with 429; the database pool (in use, idle, waiting); the key cache; the bookkeeping backlog; Node.js' own. Each app process answers for itself: scrape every one.",
    access: "metrics",
    response: z.string(),
    produces: prometheusContentType,
    handler: () => metrics().registry.metrics(),
  }),
  me: defineOperation({
    id: "getMe",
    method: "GET",
    path: "/api/v1/me",
    console: false,
    tag: "Identity",
    summary: "Who am I, and what may I do",
    description:
      "For a key, the permissions are its scopes without dangerous ones, intersected with what its owner holds now.",
    access: "authenticated",
    response: meSchema,
    handler: ({ actor }) => meOf(actor as UserActor),
  }),
};
