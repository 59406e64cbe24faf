// Where a user's linked identity comes from, shared by the server and the console. Kept apart from
// the schemas (which build zod's validators as they load) so that the user's page, which names the
// providers, does not load the validation library with it.

/** Where an identity comes from: github, google, or the configured OpenID Connect provider (oauth2). */
export const IDENTITY_PROVIDERS = ["github", "google", "oauth2"] as const;

/** An identity linked by an organization's SSO connection is stored as `sso:<connection id>`. */
export const SSO_IDENTITY_PREFIX = "sso:";
