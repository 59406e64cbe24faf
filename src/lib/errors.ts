// The error catalog: every code a request can fail with, once. The REST problem builder, the tRPC
// error formatter, the OpenAPI document, the API reference page and the console all read it.

/** Extension members a problem document may carry beyond the standard ones. */
export type ProblemExtension = "errors" | "required_permission" | "scopes" | "allowed" | "setting";

/** Response headers an error sets (their values come from the error's details). */
export type ProblemHeader = "Retry-After" | "Allow" | "RateLimit-Policy" | "RateLimit";

/** tRPC's codes, as strings (the console imports this module, so no server package here). */
type TrpcCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_SUPPORTED"
  | "CONFLICT"
  | "UNPROCESSABLE_CONTENT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL_SERVER_ERROR"
  | "SERVICE_UNAVAILABLE";

export interface ErrorInfo {
  status: number;
  title: string;
  trpc: TrpcCode;
  /** The extension members this code exposes (nothing else from an error's details leaves the server). */
  extensions: readonly ProblemExtension[];
  headers: readonly ProblemHeader[];
  /** When the code is answered, as the API reference says it. */
  note: string;
}

const info = (
  status: number,
  trpc: TrpcCode,
  title: string,
  note: string,
  more: { extensions?: readonly ProblemExtension[]; headers?: readonly ProblemHeader[] } = {},
): ErrorInfo => ({ status, trpc, title, note, extensions: more.extensions ?? [], headers: more.headers ?? [] });

export const ERRORS = {
  validation_failed: info(
    400,
    "BAD_REQUEST",
    "The request is not valid",
    "Malformed JSON, wrong types, unknown fields, bad ids or out-of-range values. `errors` lists each bad field as `path` and `message` (query fields start with `query.`, path parameters with `params.`).",
    { extensions: ["errors"] },
  ),
  unknown_scope: info(
    400,
    "BAD_REQUEST",
    "Unknown scope",
    "A requested scope is not in the permission catalog; nothing is stored. `scopes` lists the unknown scopes; `errors` points at each.",
    { extensions: ["errors", "scopes"] },
  ),
  immutable_field: info(
    400,
    "BAD_REQUEST",
    "The field cannot change",
    "An update tries to change a field fixed at creation (provider, framework_type, mode, a role's scope). `errors` names it.",
    { extensions: ["errors"] },
  ),
  unauthenticated: info(
    401,
    "UNAUTHORIZED",
    "Authentication required",
    "No credentials, or an API key sent as `Authorization: Bearer` instead of `X-API-KEY`.",
  ),
  invalid_api_key: info(
    401,
    "UNAUTHORIZED",
    "Invalid API key",
    "The key is malformed, fails its checksum (refused without a database lookup), or is not known.",
  ),
  api_key_expired: info(401, "UNAUTHORIZED", "API key expired", "The key's `expires_at` has passed."),
  api_key_revoked: info(
    401,
    "UNAUTHORIZED",
    "API key revoked",
    "The key is revoked or deleted, or its owner is deleted.",
  ),
  forbidden: info(
    403,
    "FORBIDDEN",
    "Forbidden",
    "Authenticated, but not allowed. `required_permission` names the permission the caller lacks, when one would do.",
    { extensions: ["required_permission"] },
  ),
  scope_not_held: info(
    403,
    "FORBIDDEN",
    "Scope not held",
    "A non-sys_admin asks for (or would take away) permissions it does not hold; nothing changes. `scopes` lists them.",
    { extensions: ["scopes"] },
  ),
  ip_not_allowed: info(
    403,
    "FORBIDDEN",
    "Address not allowed",
    "The API key is restricted to networks (`allowed_cidrs`) that do not include the client's address.",
  ),
  tier_required: info(
    403,
    "FORBIDDEN",
    "Subscription tier too low",
    "The organization's subscription tier does not allow the operation.",
  ),
  quota_exceeded: info(
    403,
    "FORBIDDEN",
    "Quota exceeded",
    "A quota would be exceeded: one of the organization's subscription tier, or one of the platform's own limits (how many roles, settings in a tier, organizations per user).",
  ),
  not_overridable: info(
    403,
    "FORBIDDEN",
    "Setting not overridable",
    "The tier above marks the setting as not overridable. `errors` names the key.",
    { extensions: ["errors"] },
  ),
  not_found: info(
    404,
    "NOT_FOUND",
    "Not found",
    "No such resource, or one the caller may not see (other tenants' resources look missing).",
  ),
  method_not_allowed: info(
    405,
    "METHOD_NOT_SUPPORTED",
    "Method not allowed",
    "The path does not take this method. The `Allow` header and `allowed` list the ones it takes.",
    { extensions: ["allowed"], headers: ["Allow"] },
  ),
  conflict: info(
    409,
    "CONFLICT",
    "Conflict",
    "A uniqueness rule would be broken, or a record is still referenced. `errors` names the field when one is to blame.",
    { extensions: ["errors"] },
  ),
  domain_taken: info(
    409,
    "CONFLICT",
    "Domain verified by another organization",
    "Another organization has verified this domain; a domain is verified by one organization at a time. The claim stays pending.",
  ),
  public_email_domain: info(
    422,
    "UNPROCESSABLE_CONTENT",
    "Public email domain",
    "The domain belongs to a public email provider (anyone can have an address there), so it cannot be claimed by an organization.",
    { extensions: ["errors"] },
  ),
  already_invited: info(
    409,
    "CONFLICT",
    "Already invited",
    "The address already has a pending invitation to this organization (case-insensitive): resend or revoke it instead.",
    { extensions: ["errors"] },
  ),
  already_member: info(
    409,
    "CONFLICT",
    "Already a member",
    "A user with this email address is already a member of the organization.",
    { extensions: ["errors"] },
  ),
  policy_violation: info(
    422,
    "UNPROCESSABLE_CONTENT",
    "Key policy violated",
    "Creating, rolling or changing the API key would break a key policy of the platform or of the organization: `setting` names the setting (`api_keys.max_lifetime_days`, `api_keys.require_expiry`, `api_keys.max_per_user`); nothing is stored.",
    { extensions: ["setting"] },
  ),
  payload_too_large: info(413, "PAYLOAD_TOO_LARGE", "Payload too large", "The body is over 1 MiB (1,048,576 bytes)."),
  unsupported_media_type: info(
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    "Unsupported media type",
    "A body must be sent as `application/json`.",
  ),
  rate_limited: info(
    429,
    "TOO_MANY_REQUESTS",
    "Too many requests",
    "The key made more requests than its rate limit allows in the current window (`RateLimit-Policy` and `RateLimit` say which, and where it stands), or too many authentications failed from the client's address. Retry after the `Retry-After` header's seconds.",
    { headers: ["Retry-After", "RateLimit-Policy", "RateLimit"] },
  ),
  credits_exhausted: info(
    429,
    "TOO_MANY_REQUESTS",
    "Credits exhausted",
    "The key has no credits left. With a refill set, `Retry-After` says the seconds until the next one (00:00 UTC of the day it falls due); without one, the key's credits must be raised (`POST …/api-keys/{key_id}/credits`).",
    { headers: ["Retry-After"] },
  ),
  internal_error: info(
    500,
    "INTERNAL_SERVER_ERROR",
    "Internal error",
    "A fault on our side. Quote the `X-Request-Id` when reporting it.",
  ),
  unavailable: info(
    503,
    "SERVICE_UNAVAILABLE",
    "Service unavailable",
    "The database cannot be reached; nothing was half-written. Retry after the `Retry-After` header's seconds.",
    { headers: ["Retry-After"] },
  ),
} as const satisfies Record<string, ErrorInfo>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERRORS, value);

/** A bad field: its path (dotted) and what is wrong with it. */
export interface FieldError {
  path: string;
  message: string;
}
