// Key policies: platform settings (tier 2) that bound every API key, which an organization may
// override only to make them stricter for its service accounts' keys. Shared by the server, which
// enforces them, and the console, which explains them.

export const KEY_POLICY = {
  maxLifetimeDays: "api_keys.max_lifetime_days",
  requireExpiry: "api_keys.require_expiry",
  idleRevokeDays: "api_keys.idle_revoke_days",
  maxPerUser: "api_keys.max_per_user",
  maxRateLimit: "api_keys.max_rate_limit",
} as const;

export type KeyPolicySetting = (typeof KEY_POLICY)[keyof typeof KEY_POLICY];

/** A key's rate limit as stored: at most `requests` requests per `window_seconds` seconds. */
export interface RateLimitValue {
  requests: number;
  window_seconds: number;
}

export interface KeyPolicy {
  /** Keys must expire within this many days of being issued, rolled or changed; null: no limit. */
  max_lifetime_days: number | null;
  /** Keys must have an expiry. */
  require_expiry: boolean;
  /** A key unused this long (since its last use, or its creation) is revoked; null: never. */
  idle_revoke_days: number | null;
  /** Active keys one user or service account may hold. */
  max_per_user: number;
  /** The highest rate limit a key may be given (compared per second), but by a sys_admin. */
  max_rate_limit: RateLimitValue;
}

/** What applies where nothing is set. */
export const DEFAULT_KEY_POLICY: KeyPolicy = {
  max_lifetime_days: null,
  require_expiry: false,
  idle_revoke_days: null,
  max_per_user: 100,
  max_rate_limit: { requests: 100_000, window_seconds: 60 },
};

export const KEY_POLICY_SETTINGS: readonly {
  key: KeyPolicySetting;
  field: keyof KeyPolicy;
  valueType: "integer" | "boolean" | "rate_limit";
  nullable: boolean;
  does: string;
}[] = [
  {
    key: KEY_POLICY.maxLifetimeDays,
    field: "max_lifetime_days",
    valueType: "integer",
    nullable: true,
    does: "A key must expire within this many days of being created, rolled or changed. Empty: no limit.",
  },
  {
    key: KEY_POLICY.requireExpiry,
    field: "require_expiry",
    valueType: "boolean",
    nullable: false,
    does: "Every key must have an expiry date.",
  },
  {
    key: KEY_POLICY.idleRevokeDays,
    field: "idle_revoke_days",
    valueType: "integer",
    nullable: true,
    does: "A key unused this many days (since its last use, or its creation) is revoked by the maintenance job. Empty: never.",
  },
  {
    key: KEY_POLICY.maxPerUser,
    field: "max_per_user",
    valueType: "integer",
    nullable: false,
    does: "How many active keys one user or service account may hold (default 100).",
  },
  {
    key: KEY_POLICY.maxRateLimit,
    field: "max_rate_limit",
    valueType: "rate_limit",
    nullable: false,
    does: 'The highest rate limit a key may have, as {"requests", "window_seconds"} and compared per second (default 100,000 a minute). Only a sys_admin goes above it.',
  },
];

export const isKeyPolicySetting = (key: string): key is KeyPolicySetting =>
  KEY_POLICY_SETTINGS.some((s) => s.key === key);

const positiveInt = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;

/** A rate limit's shape, as keys store it (a day's window at most); undefined when the value is not one. */
function rateLimitValue(value: unknown): RateLimitValue | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { requests, window_seconds, ...rest } = value as Record<string, unknown>;
  const r = positiveInt(requests);
  const w = positiveInt(window_seconds);
  if (r === undefined || w === undefined || w > 86_400 || Object.keys(rest).length > 0) return undefined;
  return { requests: r, window_seconds: w };
}

/** Whether rate limit `a` allows more requests per second than `b` (compared exactly, without division). */
export const fasterThan = (a: RateLimitValue, b: RateLimitValue): boolean =>
  a.requests * b.window_seconds > b.requests * a.window_seconds;

/**
 * A setting's stored value as the policy reads it: undefined when it sets nothing (absent, or not
 * of the setting's type); null for "no limit" where that is allowed.
 */
export function policyValue(
  key: KeyPolicySetting,
  value: unknown,
): number | boolean | RateLimitValue | null | undefined {
  const spec = KEY_POLICY_SETTINGS.find((s) => s.key === key);
  if (!spec) return undefined;
  if (value === null) return spec.nullable ? null : undefined;
  if (spec.valueType === "boolean") return typeof value === "boolean" ? value : undefined;
  if (spec.valueType === "rate_limit") return rateLimitValue(value);
  if (key === KEY_POLICY.maxPerUser)
    return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  return positiveInt(value);
}

/** Whether `candidate` is at least as strict as `current` for this setting (null: no limit). */
export function atLeastAsStrict(key: KeyPolicySetting, candidate: unknown, current: unknown): boolean {
  if (key === KEY_POLICY.requireExpiry) return candidate === true || current !== true;
  if (current === null || current === undefined) return true;
  if (key === KEY_POLICY.maxRateLimit) {
    const [c, now] = [rateLimitValue(candidate), rateLimitValue(current)];
    return c !== undefined && now !== undefined && !fasterThan(c, now);
  }
  return typeof candidate === "number" && typeof current === "number" && candidate <= current;
}

/**
 * The policy: the platform's values (the defaults where it sets none), then each organization tier
 * given, whose values count only where they are stricter.
 */
export function combinePolicy(
  platform: Partial<Record<KeyPolicySetting, unknown>>,
  ...stricter: readonly Partial<Record<KeyPolicySetting, unknown>>[]
): KeyPolicy {
  const policy: Record<string, unknown> = { ...DEFAULT_KEY_POLICY };
  for (const spec of KEY_POLICY_SETTINGS) {
    const value = policyValue(spec.key, platform[spec.key]);
    if (value !== undefined) policy[spec.field] = value;
  }
  for (const tier of stricter) {
    for (const spec of KEY_POLICY_SETTINGS) {
      const value = policyValue(spec.key, tier[spec.key]);
      if (value !== undefined && atLeastAsStrict(spec.key, value, policy[spec.field])) policy[spec.field] = value;
    }
  }
  return policy as unknown as KeyPolicy;
}
