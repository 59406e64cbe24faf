// Verified domains, shared by the server and the console: the TXT record an organization publishes
// to prove it holds a domain, the states a claim goes through, and the auto-join settings.

export const DOMAIN_STATUSES = ["pending", "verified", "failed"] as const;

/** The TXT record is published at `_svc-challenge.<domain>`. */
const TXT_NAME_PREFIX = "_svc-challenge.";
/** Its value: this, then the claim's token. */
const TXT_VALUE_PREFIX = "svc-domain-verification=";

export const txtName = (domain: string) => `${TXT_NAME_PREFIX}${domain}`;
export const txtValue = (token: string) => `${TXT_VALUE_PREFIX}${token}`;

/** A verified domain whose record has been missing this long at a re-check turns `failed`. */
export const RECORD_GRACE_DAYS = 7;

/** At most this many domains (any status) per organization. */
export const MAX_ORG_DOMAINS = 50;

/** Organization settings of joining by verified email domain. */
export const DOMAIN_POLICY_SETTING = "membership.domain_policy";
export const DOMAIN_ROLE_SETTING = "membership.domain_role_id";
export const DOMAIN_POLICIES = ["off", "auto_join"] as const;
