// The events a webhook endpoint may subscribe to, shared by the server and the console. A change's
// event type is `<resource>.<past verb>`, keyed by the id of the operation that makes it, so the
// console names actions the same way; operations.test.ts holds every changing operation to an
// entry. See docs/api.md#webhooks and docs/decisions/031-webhook-outbox.md.

export const CHANGE_EVENT_TYPES = {
  linkIdentity: "identity.linked",
  signOutEverywhere: "session.ended_everywhere",
  setUpTwoFactor: "two_factor.set_up",
  confirmTwoFactor: "two_factor.confirmed",
  turnOffTwoFactor: "two_factor.turned_off",
  sendEmailVerification: "email_verification.sent",
  confirmEmailVerification: "user.email_verified",
  markUserEmailVerified: "user.email_verified",
  createApiKey: "api_key.created",
  revokeApiKey: "api_key.revoked",
  updateApiKey: "api_key.updated",
  rollApiKey: "api_key.rolled",
  changeApiKeyCredits: "api_key.credits_changed",
  revokeLeakedApiKeys: "api_key.leak_reported",
  createOrganization: "organization.created",
  updateOrganization: "organization.updated",
  updateSubscription: "subscription.updated",
  deleteOrganization: "organization.deleted",
  restoreOrganization: "organization.restored",
  putPlatformSetting: "platform_setting.put",
  deletePlatformSetting: "platform_setting.deleted",
  restorePlatformSetting: "platform_setting.restored",
  putOrgSetting: "org_setting.put",
  deleteOrgSetting: "org_setting.deleted",
  restoreOrgSetting: "org_setting.restored",
  createLlmConfig: "llm_config.created",
  updateLlmConfig: "llm_config.updated",
  deleteLlmConfig: "llm_config.deleted",
  restoreLlmConfig: "llm_config.restored",
  createOrchestrator: "orchestrator.created",
  updateOrchestrator: "orchestrator.updated",
  deleteOrchestrator: "orchestrator.deleted",
  restoreOrchestrator: "orchestrator.restored",
  createCentralPoint: "central_point.created",
  updateCentralPoint: "central_point.updated",
  deleteCentralPoint: "central_point.deleted",
  restoreCentralPoint: "central_point.restored",
  registerSystemPlugin: "plugin.registered",
  updateSystemPlugin: "plugin.updated",
  registerOrgPlugin: "org_plugin.registered",
  updateOrgPlugin: "org_plugin.updated",
  createModel: "model.created",
  updateModel: "model.updated",
  createConversation: "conversation.created",
  appendMessages: "message.appended",
  compactMessages: "message.compacted",
  deleteConversation: "conversation.deleted",
  restoreConversation: "conversation.restored",
  createUser: "user.created",
  updateUser: "user.updated",
  resetUserPassword: "user.password_reset",
  resetUserTwoFactor: "user.two_factor_reset",
  unlinkUserIdentity: "identity.unlinked",
  deleteUser: "user.deleted",
  restoreUser: "user.restored",
  addMember: "member.added",
  removeMember: "member.removed",
  grantOrgRole: "role.granted",
  revokeOrgRole: "role.revoked",
  createRole: "role.created",
  updateRole: "role.updated",
  grantRole: "role.granted",
  revokeGrant: "role.revoked",
  deleteRole: "role.deleted",
  restoreRole: "role.restored",
  createOAuthClient: "oauth_client.created",
  updateOAuthClient: "oauth_client.updated",
  rotateOAuthClientSecret: "oauth_client.secret_rotated",
  deleteOAuthClient: "oauth_client.deleted",
  restoreOAuthClient: "oauth_client.restored",
  createWebhookEndpoint: "webhook_endpoint.created",
  updateWebhookEndpoint: "webhook_endpoint.updated",
  deleteWebhookEndpoint: "webhook_endpoint.deleted",
  rotateWebhookEndpointSecret: "webhook_endpoint.secret_rotated",
  testWebhookEndpoint: "webhook_endpoint.tested",
  retryWebhookDelivery: "webhook_delivery.retried",
  createOrgWebhookEndpoint: "webhook_endpoint.created",
  updateOrgWebhookEndpoint: "webhook_endpoint.updated",
  deleteOrgWebhookEndpoint: "webhook_endpoint.deleted",
  rotateOrgWebhookEndpointSecret: "webhook_endpoint.secret_rotated",
  testOrgWebhookEndpoint: "webhook_endpoint.tested",
  retryOrgWebhookDelivery: "webhook_delivery.retried",
  createServiceAccount: "service_account.created",
  updateServiceAccount: "service_account.updated",
  deleteServiceAccount: "service_account.deleted",
  // A service account's key is an API key: integrations watch one set of key events.
  createServiceAccountKey: "api_key.created",
  updateServiceAccountKey: "api_key.updated",
  createInvitation: "invitation.created",
  resendInvitation: "invitation.resent",
  revokeInvitation: "invitation.revoked",
  acceptInvitation: "invitation.accepted",
  signUpWithInvitation: "invitation.accepted",
  rollServiceAccountKey: "api_key.rolled",
  revokeServiceAccountKey: "api_key.revoked",
  changeServiceAccountKeyCredits: "api_key.credits_changed",
  revokeAllApiKeys: "user.api_keys_revoked",
  addDomain: "domain.added",
  // Every verification is a change (when the domain was checked, and what was found); the one that
  // proves the domain is also announced as domain.verified.
  verifyDomain: "domain.checked",
  deleteDomain: "domain.removed",
  createSsoConnection: "sso_connection.created",
  updateSsoConnection: "sso_connection.updated",
  deleteSsoConnection: "sso_connection.deleted",
  createScimToken: "scim_token.created",
  revokeScimToken: "scim_token.revoked",
  mapScimGroup: "scim_group.mapped",
} as const satisfies Record<string, `${string}.${string}`>;

/** Change types an operation makes besides its own: one per key a leak report revoked. */
const MORE_CHANGE_TYPES: Record<string, { operations: string[]; description: string }> = {
  "api_key.leaked": {
    operations: ["revokeLeakedApiKeys"],
    description: "An API key revoked because its value was reported leaked (one event per key).",
  },
  "domain.verified": {
    operations: ["verifyDomain"],
    description: "A domain's TXT record was found: the organization holds the domain verified.",
  },
  "domain.failed": {
    operations: [],
    description: "A verified domain's TXT record was missing at the daily re-check for 7 days: the domain failed.",
  },
  "user.provisioned": {
    operations: [],
    description:
      "The organization's directory provisioned a person (SCIM): a new user, or an existing one linked by verified email.",
  },
  "scim_user.updated": {
    operations: [],
    description: "The organization's directory changed a provisioned person (SCIM PUT or PATCH).",
  },
  "member.suspended": {
    operations: [],
    description:
      "The organization's directory set a person inactive (SCIM active: false): their membership reaches nothing.",
  },
  "user.deprovisioned": {
    operations: [],
    description:
      "The organization's directory removed a person (SCIM DELETE): the membership ends, and the user with it when nothing else remains.",
  },
  "scim_group.created": { operations: [], description: "The organization's directory created a group (SCIM)." },
  "scim_group.updated": {
    operations: [],
    description: "The organization's directory changed a group's name or members (SCIM PUT or PATCH).",
  },
  "scim_group.deleted": { operations: [], description: "The organization's directory deleted a group (SCIM)." },
  "member.joined": {
    operations: [],
    description:
      "A user joined the organization at sign-in: by a verified email at one of its verified domains (membership.domain_policy auto_join), or just in time through its SSO connection.",
  },
};

/** Events that no operation makes: the app's own. */
const SYSTEM_EVENT_TYPES = {
  "api_key.expiring": "An API key expires in 7 days, and again in 1 day (once each).",
  "api_key.expired": "An API key reached its expiry.",
  "api_key.idle_revoked": "An API key unused for api_keys.idle_revoke_days was revoked.",
  "api_key.rate_limited": "An API key's first 429 in a clock hour.",
  "api_key.credits_low":
    "An API key's credits fell below 10% of its refill amount (or below its `credits.low_at`): once per balance.",
  "api_key.credits_exhausted": "An API key was first refused for having no credits left: once per balance.",
  "webhook_endpoint.disabled": "An endpoint was disabled after 5 days of failed deliveries.",
  "invitation.expired": "A pending invitation reached its expiry unaccepted.",
  "webhook.test": "Sent by “Send test event” (POST …/test) to that endpoint only.",
} as const;

/** Every audit event, refusals and sign-ins included: the stream a SIEM subscribes to. */
export const AUDIT_STREAM = "audit.event";

/** Subscribes to every change and system event (the audit stream is named on its own). */
export const ALL_EVENTS = "*";

export interface EventTypeInfo {
  type: string;
  /** change | system | audit */
  kind: "change" | "system" | "audit";
  /** The operations that make a change of this type. */
  operations: string[];
  description: string;
}

function catalog(): EventTypeInfo[] {
  const changes = new Map<string, string[]>();
  for (const [operation, type] of Object.entries(CHANGE_EVENT_TYPES))
    changes.set(type, [...(changes.get(type) ?? []), operation]);
  return [
    ...[...changes].map(([type, operations]) => ({
      type,
      kind: "change" as const,
      operations,
      description: `A committed change made by ${operations.join(", ")}.`,
    })),
    ...Object.entries(MORE_CHANGE_TYPES).map(([type, info]) => ({ type, kind: "change" as const, ...info })),
    ...Object.entries(SYSTEM_EVENT_TYPES).map(([type, description]) => ({
      type,
      kind: "system" as const,
      operations: [],
      description,
    })),
    {
      type: AUDIT_STREAM,
      kind: "audit" as const,
      operations: [],
      description: "Every audit event (changes, refusals, sign-ins), in the shape of GET /api/v1/audit-events items.",
    },
  ].sort((a, b) => a.type.localeCompare(b.type));
}

export const EVENT_TYPE_CATALOG: readonly EventTypeInfo[] = catalog();

const KNOWN = new Set([...EVENT_TYPE_CATALOG.map((e) => e.type), ALL_EVENTS]);
/** Whether an endpoint may subscribe to this name. */
export const isSubscribable = (type: string): boolean => KNOWN.has(type) && type !== "webhook.test";

/** The event type of an operation's change (undefined for an operation that changes nothing). */
export const changeEventType = (operationId: string): string | undefined =>
  (CHANGE_EVENT_TYPES as Record<string, string>)[operationId];

/** Whether an endpoint subscribed to `subscribed` wants an event of `type`. */
export const wants = (subscribed: readonly string[], type: string): boolean =>
  subscribed.includes(type) || (type !== AUDIT_STREAM && type !== "webhook.test" && subscribed.includes(ALL_EVENTS));
