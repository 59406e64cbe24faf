import "server-only";
import { ERRORS, type ProblemHeader } from "@/lib/errors";
import type { DomainError } from "@/server/errors";

// RFC 9457 problem details, the one error shape of the REST API, built from the error catalog:
// the members and headers each code exposes, and nothing else of an error's details.

/** Seconds a client waits before retrying when the error does not say. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

// A header whose value an error does not carry is left out (a per-address 429 has no key policy).
const HEADER_VALUES: Record<ProblemHeader, (details: Record<string, unknown>) => string | undefined> = {
  "Retry-After": (details) => String(details.retry_after_seconds ?? DEFAULT_RETRY_AFTER_SECONDS),
  Allow: (details) => (Array.isArray(details.allowed) ? details.allowed.join(", ") : ""),
  "RateLimit-Policy": (details) =>
    typeof details.rate_limit_policy === "string" ? details.rate_limit_policy : undefined,
  RateLimit: (details) => (typeof details.rate_limit === "string" ? details.rate_limit : undefined),
};

export function problemBody(error: DomainError) {
  const info = ERRORS[error.code];
  const extensions = Object.fromEntries(
    info.extensions.filter((name) => error.details[name] !== undefined).map((name) => [name, error.details[name]]),
  );
  return {
    type: `/api/docs#error-${error.code}`,
    title: info.title,
    status: info.status,
    detail: error.message,
    code: error.code,
    ...extensions,
  };
}

/** The headers an error's code sets (Retry-After, Allow, the RateLimit fields). */
export const problemHeaders = (error: DomainError): Record<string, string> =>
  Object.fromEntries(
    ERRORS[error.code].headers.flatMap((name) => {
      const value = HEADER_VALUES[name](error.details);
      return value === undefined ? [] : [[name, value]];
    }),
  );

export function problemResponse(error: DomainError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(error)), {
    status: error.status,
    headers: {
      "Content-Type": "application/problem+json",
      "Cache-Control": "no-store",
      ...problemHeaders(error),
      ...headers,
    },
  });
}
