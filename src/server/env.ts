import { z } from "zod";

// The process environment, validated once. Every setting is documented in the README.
const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** A PostgreSQL (14+) connection string. Unset: the embedded database in SVC_DATA_DIR. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Connections per app process. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
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
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

/** The validated environment; throws one readable line naming each bad variable. */
export function env(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(
    Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== "")),
  );
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  cached = parsed.data;
  return cached;
}
