import "server-only";
import { env } from "@/server/env";
import { traceFields } from "@/server/tracing/spans";

// Structured logs: one JSON object per line on stdout. Secrets never reach them: values under
// secret-looking names are replaced, and anything shaped like an API key is masked wherever it is.
// A line written inside a span carries its trace_id and span_id.

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

const SECRET_NAMES =
  /^(password|password_hash|secret|client_secret|raw_key|api_key|key_hash|authorization|x-api-key|cookie|token)$/i;
const KEY_PATTERN = /cdk_[0-9A-Za-z]{4,}/g;

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.replace(KEY_PATTERN, "cdk_[REDACTED]");
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: redact(value.message, depth + 1) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_NAMES.test(k) ? "[REDACTED]" : redact(v, depth + 1)]),
  );
}

function write(level: Level, msg: string, fields: Record<string, unknown> = {}) {
  let threshold: number = LEVELS.info;
  try {
    threshold = LEVELS[env().LOG_LEVEL];
  } catch {
    // An invalid environment is reported elsewhere; keep logging at the default level.
  }
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({
    level,
    time: new Date().toISOString(),
    msg: redact(msg),
    ...traceFields(),
    ...(redact(fields) as object),
  });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
