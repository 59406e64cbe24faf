// Directory provisioning (SCIM 2.0), shared by the server and the console: where the service
// lives, its schema URNs, and its bounds.

/** The SCIM service's base URL path; the token a directory sends names the organization. */
export const SCIM_BASE_PATH = "/api/scim/v2";

/** What a SCIM token starts with (`scim_` + 43 base62 characters + a 6-character checksum). */
export const SCIM_TOKEN_PREFIX = "scim_";

export const SCIM_SCHEMAS = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  listResponse: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patchOp: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  serviceProviderConfig: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema",
} as const;

/** A list answers at most this many resources a page (`count`). */
export const SCIM_MAX_COUNT = 100;
/** A PATCH carries at most this many operations, a group PUT or PATCH this many members. */
export const SCIM_MAX_OPERATIONS = 100;
export const SCIM_MAX_GROUP_MEMBERS = 1000;
/** At most this many tokens per organization (revoked ones do not count). */
export const MAX_SCIM_TOKENS = 10;
/** Requests per token per minute; over it, 429 in SCIM's error shape. */
export const SCIM_RATE_LIMIT = { requests: 1200, window_seconds: 60 } as const;
