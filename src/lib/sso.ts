// Single sign-on through an organization's own identity provider, shared by the server and the
// console: the connection types, where each connection's endpoints live, and what the sign-in page
// says when an SSO sign-in is refused.

export const SSO_TYPES = ["oidc", "saml"] as const;

/** Where an SSO sign-in starts: `?email=` or `?domain=` finds the connection. */
export const SSO_START_PATH = "/api/sso/start";
export const ssoOidcCallbackPath = (connectionId: string) => `/api/sso/${connectionId}/oidc/callback`;
export const ssoSamlAcsPath = (connectionId: string) => `/api/sso/${connectionId}/saml/acs`;
export const ssoSamlMetadataPath = (connectionId: string) => `/api/sso/${connectionId}/saml/metadata`;

/** The scopes an OIDC connection asks for unless told otherwise. */
export const DEFAULT_OIDC_SCOPES = ["openid", "email", "profile"] as const;

/** At most this many connections per organization, and domains per connection. */
export const MAX_SSO_CONNECTIONS = 10;
export const MAX_SSO_DOMAINS = 20;

/**
 * Why an SSO sign-in was refused, as the sign-in page says it (`?sso_error=<code>&error_id=<id>`).
 * The details go to the audit trail under the id, never to the page.
 */
export const SSO_ERRORS = {
  no_connection: "No single sign-on is set up for that email address or domain.",
  connection_unavailable: "Single sign-on for your organization is not available right now. Ask its administrator.",
  identity_provider_refused: "Your identity provider did not sign you in.",
  invalid_response: "The answer from your identity provider could not be accepted. Try signing in again.",
  email_not_covered: "Your identity provider vouched for an email address this connection does not cover.",
  account_not_linkable:
    "An account with your email address exists and cannot be joined to single sign-on this way. Sign in with your password and ask an administrator.",
  membership_refused: "You could not be added to the organization (it may be full). Ask its administrator.",
  rate_limited: "Too many sign-in attempts. Wait a minute and try again.",
} as const;
export type SsoErrorCode = keyof typeof SSO_ERRORS;

export const isSsoErrorCode = (value: string): value is SsoErrorCode => Object.hasOwn(SSO_ERRORS, value);
