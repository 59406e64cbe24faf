import { DomainError, type ErrorCode } from "@/server/errors";

// RFC 9457 problem details, the one error shape of the REST API.

export const TITLES: Record<ErrorCode, string> = {
  validation_failed: "The request is not valid",
  unknown_scope: "Unknown scope",
  immutable_field: "The field cannot change",
  unauthenticated: "Authentication required",
  invalid_api_key: "Invalid API key",
  api_key_expired: "API key expired",
  api_key_revoked: "API key revoked",
  forbidden: "Forbidden",
  scope_not_held: "Scope not held",
  tier_required: "Subscription tier too low",
  quota_exceeded: "Quota exceeded",
  not_overridable: "Setting not overridable",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  payload_too_large: "Payload too large",
  unsupported_media_type: "Unsupported media type",
  rate_limited: "Too many requests",
  internal_error: "Internal error",
  unavailable: "Service unavailable",
};

/** Members a problem may carry beyond the standard ones. Nothing else leaves the server. */
const EXTENSIONS = ["errors", "required_permission", "scopes", "allowed"] as const;

export function problemBody(error: DomainError) {
  const extensions = Object.fromEntries(
    EXTENSIONS.filter((name) => error.details[name] !== undefined).map((name) => [name, error.details[name]]),
  );
  return {
    type: `/api/docs#error-${error.code}`,
    title: TITLES[error.code],
    status: error.status,
    detail: error.message,
    code: error.code,
    ...extensions,
  };
}

export function problemResponse(error: DomainError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(error)), {
    status: error.status,
    headers: { "Content-Type": "application/problem+json", "Cache-Control": "no-store", ...headers },
  });
}
