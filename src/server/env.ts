import "server-only";
import { z } from "zod";

// The process environment, validated once. Every setting is documented in docs/operating.md.
const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    /** A PostgreSQL (14+) connection string. Unset: the embedded database in SVC_DATA_DIR. */
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    /**
     * A direct (session) connection to the same database, when DATABASE_URL names a transaction
     * pooler: used for migrations, maintenance, the job queue and the LISTEN that carries
     * invalidations.
     */
    DATABASE_DIRECT_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    /** Connections per app process. */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
    /**
     * Named (prepared) statements, parsed and planned once per connection. "0" behind a pooler that
     * does not keep them per client (PgBouncer in transaction mode before 1.21); `npm start` turns
     * them off for the embedded database, whose connections share one session.
     */
    DATABASE_PREPARED_STATEMENTS: z.enum(["0", "1"]).default("1"),
    /** How long to wait for a connection (a new one, or a free one of the pool) before answering 503 (ms). */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
    /** The server cancels a statement running longer than this (ms); the client gives up a second later. */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
    /** Redis (redis:// or rediss://) holding rate-limit counters shared by every app process. Unset: per process. */
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
    /** Starts every key this deployment writes to Redis, so deployments can share one Redis. */
    REDIS_KEY_PREFIX: z.string().min(1).max(100).default("svc:"),
    /** Failed authentications (bad key, wrong password) allowed per client address per minute; 0: no limit. */
    SVC_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(60),
    /** Bearer token that GET /api/metrics requires. Unset: served to loopback addresses only. */
    SVC_METRICS_TOKEN: z.string().min(16).optional(),
    /** Folder of the embedded database (git-ignored). */
    SVC_DATA_DIR: z.string().min(1).default(".data"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** First sys_admin, created by seed when no sys_admin exists yet. */
    SVC_ADMIN_USERNAME: z.string().min(1).max(255).default("admin"),
    SVC_ADMIN_EMAIL: z.email().optional(),
    SVC_ADMIN_PASSWORD: z.string().min(12).optional(),
    /** Signs console session cookies. Unset: generated once into SVC_DATA_DIR by `npm start`. */
    AUTH_SECRET: z.string().min(32).optional(),
    /**
     * Keys that encrypt provider API keys at rest: `v2:<base64 32 bytes>,v1:<…>`, current first.
     * Unset: generated once into SVC_DATA_DIR by `npm start`.
     */
    SVC_ENCRYPTION_KEYS: z.string().min(1).optional(),
    /** Development only: lets LLM config base URLs use http to a loopback host. */
    SVC_ALLOW_HTTP_LOOPBACK: z.enum(["0", "1"]).default("0"),
    /** How often best-effort last_used_at / last_accessed_at writes are flushed (ms). */
    SVC_BOOKKEEPING_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(5_000),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    /** The app's public URL (https://svc.example.com): the base of OAuth callback URLs. Read by Auth.js. */
    AUTH_URL: z.url().optional(),
    /** Console sign-in with GitHub: on when both are set. */
    AUTH_GITHUB_ID: z.string().min(1).optional(),
    AUTH_GITHUB_SECRET: z.string().min(1).optional(),
    /** Console sign-in with Google: on when both are set. */
    AUTH_GOOGLE_ID: z.string().min(1).optional(),
    AUTH_GOOGLE_SECRET: z.string().min(1).optional(),
    /** Console sign-in with any OpenID Connect provider: on when issuer, id and secret are set. */
    AUTH_OIDC_ISSUER: z
      .url()
      .refine((value) => {
        const url = new URL(value);
        return (
          url.protocol === "https:" ||
          (url.protocol === "http:" && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname))
        );
      }, "must be an https URL (http only for a loopback host)")
      .optional(),
    AUTH_OIDC_ID: z.string().min(1).optional(),
    AUTH_OIDC_SECRET: z.string().min(1).optional(),
    AUTH_OIDC_NAME: z.string().min(1).max(100).default("OpenID Connect"),
    /** 1: a first OAuth sign-in with a verified email that matches no user creates one (no roles). */
    SVC_OAUTH_AUTO_CREATE_USERS: z.enum(["0", "1"]).default("0"),
    SVC_OAUTH_AUTO_LINK: z.enum(["0", "1"]).default("1"),
    /** Outgoing mail (smtp:// or smtps://, nodemailer's URL form). Unset: no email is sent. */
    SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    /** The From of outgoing mail (`svc <no-reply@example.com>`). Unset: no-reply at SMTP_URL's host. */
    SMTP_FROM: z.string().min(3).max(320).optional(),
    /** 0: this process runs no queue workers and no scheduled jobs (it still writes events). */
    SVC_JOBS: z.enum(["0", "1"]).default("1"),
    /**
     * Tests only: the webhook retry schedule in seconds, comma-separated (default
     * 5,300,1800,7200,18000,36000,36000).
     */
    SVC_WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\d+(,\d+){0,20}$/)
      .optional(),
  })
  .superRefine((value, ctx) => {
    // A provider is switched on by its variables together: half a configuration is a mistake.
    const groups: [string, (keyof typeof value)[]][] = [
      ["GitHub", ["AUTH_GITHUB_ID", "AUTH_GITHUB_SECRET"]],
      ["Google", ["AUTH_GOOGLE_ID", "AUTH_GOOGLE_SECRET"]],
      ["OpenID Connect", ["AUTH_OIDC_ISSUER", "AUTH_OIDC_ID", "AUTH_OIDC_SECRET"]],
    ];
    for (const [name, keys] of groups) {
      const set = keys.filter((k) => value[k] !== undefined);
      if (set.length > 0 && set.length < keys.length) {
        for (const key of keys.filter((k) => value[k] === undefined)) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `is required to sign in with ${name} (${set.join(", ")} is set)`,
          });
        }
      }
    }
  });

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

/** The validated environment; throws one readable line naming each bad variable. */
export function env(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== "")));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  cached = parsed.data;
  return cached;
}
