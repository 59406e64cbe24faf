import { z } from "zod";
import { MAX_CREDITS, META_MAX_BYTES, META_MAX_DEPTH, META_MAX_PROPERTIES, REFILL_INTERVALS } from "@/lib/credits";
import { ALL_PERMISSIONS, isPermission } from "@/lib/permissions";
import { USAGE_OUTCOMES } from "@/lib/usage";
import {
  booleanQuery,
  count,
  EXAMPLE_TIMESTAMPS,
  id,
  LENGTH,
  list,
  listOf,
  pageQuery,
  text,
  moment,
  timestamp,
  timestamps,
} from "./common";
import { MAX_ORGANIZATIONS_PER_USER } from "./organizations";

// API key inputs and outputs: one schema each, feeding the REST handlers, the tRPC procedures,
// the OpenAPI document and the console's forms.

/** How many requests a key may make per window; over it, 429 `rate_limited`. */
export const rateLimitSchema = z
  .strictObject({
    requests: z.number().int().min(1).max(10_000_000),
    window_seconds: z.number().int().min(1).max(86_400),
  })
  .meta({
    id: "RateLimit",
    description: "At most `requests` requests per `window_seconds` seconds.",
    examples: [{ requests: 600, window_seconds: 60 }],
  });
export type RateLimit = z.input<typeof rateLimitSchema>;

/** `600/60` (requests per seconds), as the CLI and the console take it; undefined when it is not that shape. */
export function parseRateLimit(text: string): RateLimit | undefined {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,6})\s*$/.exec(text);
  if (!match) return undefined;
  return { requests: Number(match[1]), window_seconds: Number(match[2]) };
}

/** How long an old key keeps working after a roll, at most (7 days). */
const MAX_GRACE_PERIOD_SECONDS = 604_800;
/** The grace periods the console offers when rolling a key. */
export const GRACE_CHOICES = [
  { label: "None", seconds: 0 },
  { label: "1 hour", seconds: 3_600 },
  { label: "24 hours", seconds: 86_400 },
  { label: "7 days", seconds: 604_800 },
] as const;
export { EXPIRING_SOON_DAYS } from "@/lib/api-keys";
/** Usage buckets are kept this long. */
export const USAGE_RETENTION_DAYS = 90;
export { USAGE_OUTCOMES, type UsageOutcome } from "@/lib/usage";
/** The most hourly buckets a usage answer holds: every outcome of every hour the longest range touches. */
const MAX_USAGE_BUCKETS = (USAGE_RETENTION_DAYS * 24 + 1) * USAGE_OUTCOMES.length;

const MAX_RESTRICTIONS = 100;
/** The most scopes a key carries. */
const MAX_SCOPES = 64;
const scopeList = list(text(), MAX_SCOPES);
/** What a key's display prefix (`cdk_` and its first 8 characters) is stored in. */
const KEY_PREFIX_LENGTH = 16;
/** A raw key as issued: `cdk_`, 43 letters and digits, and a 6-character checksum. */
const RAW_KEY = /^cdk_[0-9A-Za-z]{49}$/;

export const allowedOrgIdsSchema = list(id, MAX_RESTRICTIONS)
  .min(1, "must list at least one organization, or be null")
  .refine((s) => new Set(s).size === s.length, "must not repeat an organization")
  .nullable()
  .describe(
    "The organizations the key may act in, each one its owner belongs to; null: all of the owner's. Elsewhere it acts as if its owner were not a member.",
  );

// At most 255.255.255.255/32 (18 characters) or 8 groups of 4 hex digits and /128 (43).
export const allowedCidrsSchema = list(
  z.union([z.cidrv4().max(18), z.cidrv6().max(43)], {
    error: "must be an IPv4 or IPv6 CIDR, such as 203.0.113.0/24 or 2001:db8::/32",
  }),
  MAX_RESTRICTIONS,
)
  .min(1, "must list at least one CIDR, or be null")
  .nullable()
  .describe("IPv4/IPv6 CIDRs the key may be used from; null: any address. From elsewhere: 403 `ip_not_allowed`.")
  .meta({ examples: [["203.0.113.0/24", "2001:db8::/32"]] });

/** The restrictions a key carries, as one piece (create, update, roll keep them together). */
const restrictions = {
  allowed_org_ids: allowedOrgIdsSchema,
  allowed_cidrs: allowedCidrsSchema,
};

const creditAmount = z.number().int().min(0).max(MAX_CREDITS);

const creditsRefillSchema = z
  .strictObject({
    amount: z.number().int().min(1).max(MAX_CREDITS).describe("What the balance is set to at each refill."),
    interval: z.enum(REFILL_INTERVALS),
    day: z
      .number()
      .int()
      .min(1)
      .max(31)
      .nullable()
      .default(null)
      .describe("Monthly: the day of the month (past a month's end, its last day; default 1). Daily: null."),
  })
  .refine((refill) => refill.interval === "monthly" || refill.day === null, {
    message: "only a monthly refill takes a day",
    path: ["day"],
  })
  .meta({
    id: "CreditsRefill",
    description:
      "At 00:00 UTC of each day it falls due, the balance becomes `amount` (it replaces what was left, it does not add to it).",
    examples: [{ amount: 10_000, interval: "monthly", day: 1 }],
  });

const creditsInput = z
  .strictObject({
    remaining: creditAmount.describe("The balance: each request the key makes costs 1."),
    refill: creditsRefillSchema.nullable().default(null),
    low_at: creditAmount
      .nullable()
      .default(null)
      .describe("api_key.credits_low is sent once the balance falls below this; null: below 10% of the refill amount."),
  })
  .nullable()
  .describe("The key's budget; null: unlimited. Over it: 429 `credits_exhausted`.")
  .meta({ examples: [{ remaining: 10_000, refill: { amount: 10_000, interval: "monthly", day: 1 }, low_at: null }] });
export type CreditsInput = z.output<typeof creditsInput>;

const creditsSchema = z
  .object({
    remaining: count.describe(
      "The balance now (credits each app process holds in advance, at most 1% of it, are not counted here).",
    ),
    refill: z
      .object({ amount: count, interval: z.enum(REFILL_INTERVALS), day: z.number().int().nullable() })
      .nullable(),
    low_at: count.nullable(),
    next_refill_at: moment.nullable(),
  })
  .nullable()
  .meta({
    id: "Credits",
    description: "The key's budget; null: unlimited.",
    examples: [
      {
        remaining: 8_412,
        refill: { amount: 10_000, interval: "monthly", day: 1 },
        low_at: null,
        next_refill_at: "2026-02-01T00:00:00.000Z",
      },
    ],
  });

function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  return 1 + items.reduce<number>((deepest, item) => Math.max(deepest, depthOf(item)), 0);
}

export const metaSchema = z
  // zod leaves a "__proto__" property out of the record it makes: it never becomes a prototype.
  .record(text(100), z.json())
  .refine((meta) => Object.keys(meta).length <= META_MAX_PROPERTIES, {
    message: `must have at most ${META_MAX_PROPERTIES} properties`,
  })
  .refine((meta) => depthOf(meta) <= META_MAX_DEPTH, { message: `must nest at most ${META_MAX_DEPTH} levels deep` })
  .refine((meta) => new TextEncoder().encode(JSON.stringify(meta)).length <= META_MAX_BYTES, {
    message: `must be at most ${META_MAX_BYTES} bytes of JSON`,
  })
  .describe(
    "The owner's own data about the key (a plan, a customer id), returned by lists, /api/v1/me and verify. At most 4 KiB of JSON, 50 top-level properties, 3 levels deep. Never a secret's place: anyone who reads the key reads it.",
  )
  .meta({ id: "ApiKeyMeta", examples: [{ plan: "pro", customer: "acme-42" }] });

export type ApiKeyMeta = z.output<typeof metaSchema>;

/** Stored metadata as answered: an object (anything else stored by hand reads as empty). */
export const metaOf = (value: unknown): ApiKeyMeta =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as ApiKeyMeta) : {};

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90s`, `30m`, `24h`, `7d` or `0` in seconds, as the CLI takes a grace period; undefined when it is not that shape. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d{1,7})\s*([smhd]?)\s*$/.exec(text);
  if (!match || (match[2] === "" && match[1] !== "0")) return undefined;
  return Number(match[1]) * (DURATION_UNITS[match[2] || "s"] ?? 1);
}

export const createApiKeyInput = z
  .strictObject({
    name: text().trim().min(1, "must not be empty"),
    // Unknown scopes are refused by the service with `unknown_scope`, so any string is let through here.
    scopes: scopeList
      .min(1, "must list at least one scope")
      .refine((s) => new Set(s).size === s.length, "must not repeat a scope"),
    expires_at: timestamp.nullable().default(null),
    rate_limit: rateLimitSchema
      .nullable()
      .default(null)
      .describe("The key's own rate limit; null: the platform's `api_keys.default_rate_limit`."),
    allowed_org_ids: allowedOrgIdsSchema.default(null),
    allowed_cidrs: allowedCidrsSchema.default(null),
    credits: creditsInput.default(null),
    meta: metaSchema.default({}),
  })
  .meta({
    examples: [
      {
        name: "ci-deploy",
        scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
        expires_at: "2027-01-15T09:30:00.000Z",
        rate_limit: { requests: 600, window_seconds: 60 },
        allowed_org_ids: null,
        allowed_cidrs: ["203.0.113.0/24", "2001:db8::/32"],
        credits: { remaining: 10_000, refill: { amount: 10_000, interval: "monthly", day: 1 }, low_at: null },
        meta: { plan: "pro" },
      },
    ],
  });
export type CreateApiKeyInput = z.output<typeof createApiKeyInput>;

/** What PATCH changes: any of these, nothing else (scopes never change). */
export const updateApiKeyInput = z
  .strictObject({
    name: text().trim().min(1, "must not be empty").optional(),
    rate_limit: rateLimitSchema.nullable().optional().describe("The key's own rate limit; null: the platform default."),
    allowed_org_ids: allowedOrgIdsSchema.optional(),
    allowed_cidrs: allowedCidrsSchema.optional(),
    credits: creditsInput.optional().describe("The key's budget, replacing the one it had; null: unlimited."),
    meta: metaSchema.optional().describe("Replaces the key's metadata as a whole."),
  })
  .meta({
    examples: [{ allowed_cidrs: ["203.0.113.0/24"], allowed_org_ids: ["0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70"] }],
  });
export type UpdateApiKeyInput = z.output<typeof updateApiKeyInput>;

export const rollApiKeyInput = z
  .strictObject({
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_PERIOD_SECONDS)
      .default(0)
      .describe("How long the old key keeps working: its `expires_at` becomes now plus this (0: refused at once)."),
  })
  .meta({ examples: [{ grace_period_seconds: 86_400 }] });
export type RollApiKeyInput = z.output<typeof rollApiKeyInput>;

const CREDIT_OPERATIONS = ["set", "increment", "decrement"] as const;

export const changeCreditsInput = z
  .strictObject({
    op: z.enum(CREDIT_OPERATIONS),
    amount: creditAmount
      .nullable()
      .describe("`set`: the new balance (null: unlimited); `increment`/`decrement`: how many to add or take away."),
  })
  .refine((change) => change.op === "set" || change.amount !== null, {
    message: "only `set` takes null (unlimited)",
    path: ["amount"],
  })
  .meta({ examples: [{ op: "increment", amount: 5_000 }] });
export type ChangeCreditsInput = z.output<typeof changeCreditsInput>;

export const listApiKeysQuery = pageQuery.extend({
  active: booleanQuery.optional(),
  user_id: id.optional(),
  expiring_within_days: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .optional()
    .describe("Only active keys whose `expires_at` falls within this many days from now."),
});
export type ListApiKeysQuery = z.output<typeof listApiKeysQuery>;

export const usageQuery = z.strictObject({
  from: timestamp.optional().describe("Start of the first hour; default: 7 days ago."),
  to: timestamp.optional().describe("End (exclusive); default: now."),
});
export type UsageQuery = z.output<typeof usageQuery>;

const usageBucketSchema = z.object({
  hour: moment,
  outcome: z.enum(USAGE_OUTCOMES),
  count,
});
export const usageSchema = z.object({ data: list(usageBucketSchema, MAX_USAGE_BUCKETS) }).meta({
  id: "ApiKeyUsage",
  examples: [
    {
      data: [
        { hour: "2026-01-15T09:00:00.000Z", outcome: "2xx", count: 412 },
        { hour: "2026-01-15T09:00:00.000Z", outcome: "429", count: 3 },
      ],
    },
  ],
});

export const revokeLeakedInput = z
  .strictObject({
    keys: list(text()).min(1).describe("Raw keys found exposed; anything else in the list is ignored."),
  })
  .meta({ examples: [{ keys: ["cdk_7Hq2LmXaP4kR9sT1vW3yZ5bD7fH9jL2nQ4rS6tU8wX03QrEfw"] }] });
export const revokeLeakedResponse = z.object({
  received: count.describe("How many values were received; says nothing of what they were."),
});

export const apiKeyIdParams = z.strictObject({ key_id: id });

export const revokeAllResponse = z.object({ revoked: count.describe("How many active keys were revoked.") });

/** The platform's key policy as the console's create dialog follows it. */
export const keyPolicySchema = z.object({
  max_lifetime_days: z.number().int().nullable(),
  require_expiry: z.boolean(),
});

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    name: text(),
    key_prefix: text(KEY_PREFIX_LENGTH),
    scopes: scopeList,
    rate_limit: rateLimitSchema.nullable().describe("The key's own rate limit; null: the platform default applies."),
    ...restrictions,
    expires_at: moment.nullable(),
    last_used_at: moment.nullable(),
    last_used_ip: text(64).nullable().describe("The client address of the key's latest request (best effort)."),
    last_user_agent: text().nullable().describe("The User-Agent of the key's latest request (best effort)."),
    is_active: z.boolean(),
    credits: creditsSchema,
    meta: metaSchema,
    ...timestamps,
  })
  .meta({
    id: "ApiKey",
    examples: [
      {
        id: "0193a5c3-0a4b-7c5d-9e6f-7a8b9c0d1e2f",
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        name: "ci-deploy",
        key_prefix: "cdk_7Hq2LmXa",
        scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
        rate_limit: null,
        allowed_org_ids: null,
        allowed_cidrs: ["203.0.113.0/24"],
        expires_at: "2027-01-15T09:30:00.000Z",
        last_used_at: "2026-02-03T14:05:12.000Z",
        last_used_ip: "203.0.113.7",
        last_user_agent: "ci-runner/2.1",
        is_active: true,
        credits: null,
        meta: { plan: "pro" },
        ...EXAMPLE_TIMESTAMPS,
      },
    ],
  });
export type ApiKey = z.input<typeof apiKeySchema>;

export const createdApiKeySchema = z
  .object({
    id: z.uuid(),
    name: text(),
    key_prefix: text(KEY_PREFIX_LENGTH),
    scopes: scopeList,
    effective_scopes: scopeList.describe("The scopes without the dangerous ones: what the key will carry."),
    rate_limit: rateLimitSchema.nullable().describe("The key's own rate limit; null: the platform default applies."),
    ...restrictions,
    expires_at: moment.nullable(),
    is_active: z.boolean(),
    credits: creditsSchema,
    meta: metaSchema,
    created_at: moment,
    raw_key: z.string().max(53).regex(RAW_KEY).describe("The key itself. Shown once, in this response only."),
  })
  .meta({
    id: "CreatedApiKey",
    examples: [
      {
        id: "0193a5c3-0a4b-7c5d-9e6f-7a8b9c0d1e2f",
        name: "ci-deploy",
        key_prefix: "cdk_7Hq2LmXa",
        scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
        effective_scopes: ["svc:system:orgs:read", "svc:orchestrators:read"],
        rate_limit: { requests: 600, window_seconds: 60 },
        allowed_org_ids: null,
        allowed_cidrs: null,
        expires_at: "2027-01-15T09:30:00.000Z",
        is_active: true,
        credits: {
          remaining: 10_000,
          refill: { amount: 10_000, interval: "monthly", day: 1 },
          low_at: null,
          next_refill_at: "2026-02-01T00:00:00.000Z",
        },
        meta: { plan: "pro" },
        created_at: "2026-01-15T09:30:00.000Z",
        raw_key: "cdk_7Hq2LmXaP4kR9sT1vW3yZ5bD7fH9jL2nQ4rS6tU8wX03QrEfw",
      },
    ],
  });
export type CreatedApiKey = z.input<typeof createdApiKeySchema>;

export const apiKeyListSchema = listOf(apiKeySchema);

const VERIFY_CODES = [
  "VALID",
  "NOT_FOUND",
  "REVOKED",
  "EXPIRED",
  "ORG_NOT_ALLOWED",
  "IP_NOT_ALLOWED",
  "INSUFFICIENT_PERMISSIONS",
  "RATE_LIMITED",
  "CREDITS_EXHAUSTED",
] as const;
export type VerifyCode = (typeof VERIFY_CODES)[number];

/** The most credits one verification consumes. */
const MAX_VERIFY_COST = 1000;

export const verifyApiKeyInput = z
  .strictObject({
    key: text(LENGTH.STANDARD).describe("The raw key the caller presented to your service."),
    permissions: list(text().refine(isPermission, "must be a known permission"), MAX_SCOPES)
      .optional()
      .describe("Permissions the key must all hold (in `org_id` when given); else INSUFFICIENT_PERMISSIONS."),
    org_id: id.optional().describe("The organization the call acts in; a key that may not act there: ORG_NOT_ALLOWED."),
    client_ip: z
      .union([z.ipv4().max(15), z.ipv6().max(45)], { error: "must be an IPv4 or IPv6 address" })
      .optional()
      .describe(
        "The caller's address, checked against the key's `allowed_cidrs`; a key restricted to networks is IP_NOT_ALLOWED without it.",
      ),
    cost: z
      .number()
      .int()
      .min(0)
      .max(MAX_VERIFY_COST)
      .default(1)
      .describe("Credits to consume (0: check only — nothing is consumed or counted)."),
  })
  .meta({
    examples: [
      {
        key: "cdk_7Hq2LmXaP4kR9sT1vW3yZ5bD7fH9jL2nQ4rS6tU8wX03QrEfw",
        permissions: ["svc:conversations:write"],
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        client_ip: "203.0.113.7",
        cost: 1,
      },
    ],
  });
export type VerifyApiKeyInput = z.output<typeof verifyApiKeyInput>;

export const verifiedApiKeySchema = z
  .object({
    valid: z.boolean(),
    code: z.enum(VERIFY_CODES),
    key_id: z.uuid().optional(),
    key_prefix: text(KEY_PREFIX_LENGTH).optional(),
    owner: z.object({ user_id: z.uuid(), kind: z.enum(["user", "service_account"]), username: text() }).optional(),
    org_ids: list(z.uuid(), MAX_ORGANIZATIONS_PER_USER).optional().describe("The organizations the key acts in now."),
    permissions: list(text(), ALL_PERMISSIONS.length)
      .optional()
      .describe("What the key may do now: in `org_id` when given, else globally."),
    expires_at: moment.nullable().optional(),
    credits: z
      .object({ remaining: count })
      .nullable()
      .optional()
      .describe("The balance after this verification; null: unlimited."),
    ratelimit: z
      .object({ limit: count, remaining: count, reset: moment })
      .nullable()
      .optional()
      .describe("Where the key's rate limit stands; null when the verification stopped before it."),
    meta: metaSchema.optional(),
  })
  .meta({
    id: "VerifiedApiKey",
    description:
      "`valid` and `code` always; the other fields only for a key that exists and is not deleted (never for NOT_FOUND).",
    examples: [
      {
        valid: true,
        code: "VALID",
        key_id: "0193a5c3-0a4b-7c5d-9e6f-7a8b9c0d1e2f",
        key_prefix: "cdk_7Hq2LmXa",
        owner: { user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22", kind: "service_account", username: "support-bot" },
        org_ids: ["0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70"],
        permissions: ["svc:conversations:write", "svc:orchestrators:read"],
        expires_at: null,
        credits: { remaining: 8_411 },
        ratelimit: { limit: 600, remaining: 598, reset: "2026-01-15T09:31:00.000Z" },
        meta: { plan: "pro" },
      },
    ],
  });
export type VerifiedApiKey = z.output<typeof verifiedApiKeySchema>;
