import { CHANGE_EVENT_TYPES, changeEventType } from "./event-types";

// What an audit event's action (an operation id such as `createApiKey`, or `signIn`) is called where
// people read it: the event type its webhooks carry (`api_key.created`, src/lib/event-types.ts) and
// a sentence-case label made from it ("API key created"), so the trail and the events read alike.

export interface AuditActionName {
  /** `<resource>.<past verb>`, e.g. `api_key.created`. */
  type: string;
  /** What happened, for people: "API key created". */
  label: string;
}

/** Words written otherwise than in lower case. */
const PROPER: Readonly<Record<string, string>> = { api: "API", oauth: "OAuth", llm: "LLM", org: "organization" };

/** Sign-ins are no operation of the registry: their actions are named here. */
export const SIGN_IN_ACTION = "signIn";
/** A key revoked by the maintenance job for going unused (`api_keys.idle_revoke_days`). */
export const IDLE_REVOKE_ACTION = "revokeIdleApiKey";

/** A domain's TXT record found by a verification (recorded beside the verification's own event). */
export const DOMAIN_VERIFIED_ACTION = "domainVerified";
/** The daily re-check first missed a verified domain's record. */
export const DOMAIN_RECORD_MISSING_ACTION = "domainRecordMissing";
/** The daily re-check missed a verified domain's record for 7 days: the domain failed. */
export const DOMAIN_FAILED_ACTION = "domainFailed";
/** A user joined an organization at sign-in through its verified domain (membership.domain_policy). */
export const DOMAIN_JOIN_ACTION = "joinByDomain";
/** A user joined an organization at their first sign-in through its SSO connection (just in time). */
export const SSO_JOIN_ACTION = "joinBySso";

/** A directory's changes through the SCIM service (actor_auth `scim`), which has no operations of the registry. */
export const SCIM_PROVISION_ACTION = "provisionScimUser";
export const SCIM_UPDATE_USER_ACTION = "updateScimUser";
export const SCIM_DEPROVISION_ACTION = "deprovisionScimUser";
export const SCIM_CREATE_GROUP_ACTION = "createScimGroup";
export const SCIM_UPDATE_GROUP_ACTION = "updateScimGroup";
export const SCIM_DELETE_GROUP_ACTION = "deleteScimGroup";

/** Actions the trail records that no operation makes. */
const NAMED: Readonly<Record<string, AuditActionName>> = {
  [SIGN_IN_ACTION]: { type: "session.signed_in", label: "Signed in" },
  [IDLE_REVOKE_ACTION]: { type: "api_key.idle_revoked", label: "Idle API key revoked" },
  [DOMAIN_VERIFIED_ACTION]: { type: "domain.verified", label: "Domain verified" },
  [DOMAIN_RECORD_MISSING_ACTION]: { type: "domain.record_missing", label: "Domain record missing" },
  [DOMAIN_FAILED_ACTION]: { type: "domain.failed", label: "Domain failed" },
  [DOMAIN_JOIN_ACTION]: { type: "member.joined", label: "Member joined" },
  [SSO_JOIN_ACTION]: { type: "member.joined", label: "Member joined" },
  [SCIM_PROVISION_ACTION]: { type: "user.provisioned", label: "User provisioned" },
  [SCIM_UPDATE_USER_ACTION]: { type: "scim_user.updated", label: "Provisioned user updated" },
  [SCIM_DEPROVISION_ACTION]: { type: "user.deprovisioned", label: "User deprovisioned" },
  [SCIM_CREATE_GROUP_ACTION]: { type: "scim_group.created", label: "Directory group created" },
  [SCIM_UPDATE_GROUP_ACTION]: { type: "scim_group.updated", label: "Directory group updated" },
  [SCIM_DELETE_GROUP_ACTION]: { type: "scim_group.deleted", label: "Directory group deleted" },
};

/** "api_key.leak_reported" → "API key leak reported". */
function labelOf(type: string): string {
  const [resource = "", verb = ""] = type.split(".");
  const spoken = resource
    .split("_")
    .map((w) => PROPER[w] ?? w)
    .join(" ")
    .replace("two factor", "two-factor");
  return `${spoken.charAt(0).toUpperCase()}${spoken.slice(1)} ${verb.replace(/_/g, " ")}`;
}

/** The event type and label of an audit event's action; an action it cannot read is shown as it is. */
export function auditAction(action: string): AuditActionName {
  const catalogued = changeEventType(action);
  if (catalogued) return { type: catalogued, label: labelOf(catalogued) };
  return NAMED[action] ?? { type: action, label: action };
}

/**
 * What sets an operation apart from another of the same event type (and label), said after the
 * label where people pick one of them: the API key a service account holds, not a user's own; an
 * org role granted through an organization's members, not by a user administrator; an
 * organization's webhook endpoint, not the platform's.
 */
const QUALIFIERS: Readonly<Record<string, string>> = {
  joinByDomain: "verified domain",
  joinBySso: "identity provider",
  createServiceAccountKey: "service account",
  revokeServiceAccountKey: "service account",
  updateServiceAccountKey: "service account",
  rollServiceAccountKey: "service account",
  changeServiceAccountKeyCredits: "service account",
  grantOrgRole: "organization member",
  revokeOrgRole: "organization member",
  createOrgWebhookEndpoint: "organization",
  updateOrgWebhookEndpoint: "organization",
  deleteOrgWebhookEndpoint: "organization",
  rotateOrgWebhookEndpointSecret: "organization",
  testOrgWebhookEndpoint: "organization",
  retryOrgWebhookDelivery: "organization",
  acceptInvitation: "signed in",
  signUpWithInvitation: "new account",
  markUserEmailVerified: "by a sys admin",
  confirmEmailVerification: "by a link",
};

/** How an action is offered in the filters: its label, with what sets it apart ("API key created (service account)"). */
export function auditActionChoice(action: string): string {
  const { label } = auditAction(action);
  const qualifier = QUALIFIERS[action];
  return qualifier ? `${label} (${qualifier})` : label;
}

/** Every action the trail records (the operations that change something, sign-ins, the maintenance job's), for filters. */
export const AUDIT_ACTIONS: readonly string[] = [
  SIGN_IN_ACTION,
  IDLE_REVOKE_ACTION,
  DOMAIN_VERIFIED_ACTION,
  DOMAIN_RECORD_MISSING_ACTION,
  DOMAIN_FAILED_ACTION,
  DOMAIN_JOIN_ACTION,
  SSO_JOIN_ACTION,
  ...Object.keys(CHANGE_EVENT_TYPES),
];
