// What an audit event's action (an operation id such as `createApiKey`, or `signIn`) is called where
// people read it: an event type `<resource>.<past verb>` (`api_key.created`) and a sentence-case
// label ("API key created"). The one place that maps operations to these names, so it can later
// follow a catalog of event types without the screens that show them changing.

export interface AuditActionName {
  /** `<resource>.<past verb>`, e.g. `api_key.created`. */
  type: string;
  /** What happened, for people: "API key created". */
  label: string;
}

/** Verbs that start an operation id, longest first, with their past tense (words). */
const VERBS: readonly (readonly [string, string])[] = [
  ["signOut", "signed out"],
  ["turnOff", "turned off"],
  ["setUp", "set up"],
  ["register", "registered"],
  ["restore", "restored"],
  ["compact", "compacted"],
  ["confirm", "confirmed"],
  ["create", "created"],
  ["update", "updated"],
  ["delete", "deleted"],
  ["revoke", "revoked"],
  ["rotate", "rotated"],
  ["append", "appended"],
  ["remove", "removed"],
  ["unlink", "unlinked"],
  ["grant", "granted"],
  ["reset", "reset"],
  ["link", "linked"],
  ["roll", "rolled"],
  ["add", "added"],
  ["put", "set"],
];

/** Words written otherwise than in lower case. */
const PROPER: Readonly<Record<string, string>> = { api: "API", oauth: "OAuth", llm: "LLM", org: "organization" };

/** Operations whose id does not read as `<verb><Resource>`, named outright. */
const NAMED: Readonly<Record<string, AuditActionName>> = {
  signIn: { type: "session.signed_in", label: "Signed in" },
  signOutEverywhere: { type: "session.signed_out_everywhere", label: "Signed out everywhere" },
  revokeLeakedApiKeys: { type: "api_key.leaked_revoked", label: "Leaked API keys revoked" },
  revokeAllApiKeys: { type: "api_key.all_revoked", label: "All API keys revoked" },
  revokeIdleApiKey: { type: "api_key.idle_revoked", label: "Idle API key revoked" },
  grantRole: { type: "role_grant.created", label: "Role granted" },
  revokeGrant: { type: "role_grant.revoked", label: "Role grant revoked" },
  grantOrgRole: { type: "org_role_grant.created", label: "Organization role granted" },
  revokeOrgRole: { type: "org_role_grant.revoked", label: "Organization role revoked" },
  resetUserTwoFactor: { type: "user.two_factor_reset", label: "User's two-factor reset" },
  resetUserPassword: { type: "user.password_reset", label: "User's password reset" },
  putPlatformSetting: { type: "platform_setting.set", label: "Platform setting set" },
  putOrgSetting: { type: "org_setting.set", label: "Organization setting set" },
};

/** `OAuthClient` → ["oauth", "client"]; `ApiKeys` → ["api", "key"]. */
function words(resource: string): string[] {
  const split = resource.replace(/^OAuth/, "Oauth").match(/[A-Z][a-z0-9]*/g) ?? [resource];
  const list = split.map((w) => w.toLowerCase());
  const last = list.length - 1;
  if (last >= 0 && list[last]!.endsWith("s") && list[last] !== "settings") list[last] = list[last]!.slice(0, -1);
  return list;
}

/** The event type and label of an audit event's action; an action it cannot read is shown as it is. */
export function auditAction(action: string): AuditActionName {
  const named = NAMED[action];
  if (named) return named;
  const verb = VERBS.find(([prefix]) => action.startsWith(prefix) && /^[A-Z]/.test(action.slice(prefix.length)));
  if (!verb) return { type: action, label: action };
  const resource = words(action.slice(verb[0].length));
  const spoken = resource
    .map((w) => PROPER[w] ?? w)
    .join(" ")
    .replace("two factor", "two-factor");
  return {
    type: `${resource.join("_")}.${verb[1].replace(/ /g, "_")}`,
    label: `${spoken.charAt(0).toUpperCase()}${spoken.slice(1)} ${verb[1]}`,
  };
}

/** Every action the trail records (the operations that change something, sign-ins, the maintenance job's), for filters. */
export const AUDIT_ACTIONS: readonly string[] = [
  "signIn",
  "revokeIdleApiKey",
  "revokeAllApiKeys",
  "createServiceAccount",
  "updateServiceAccount",
  "deleteServiceAccount",
  "createServiceAccountKey",
  "updateServiceAccountKey",
  "rollServiceAccountKey",
  "revokeServiceAccountKey",
  "linkIdentity",
  "signOutEverywhere",
  "setUpTwoFactor",
  "confirmTwoFactor",
  "turnOffTwoFactor",
  "createApiKey",
  "revokeApiKey",
  "updateApiKey",
  "rollApiKey",
  "revokeLeakedApiKeys",
  "createOrganization",
  "updateOrganization",
  "updateSubscription",
  "deleteOrganization",
  "restoreOrganization",
  "putPlatformSetting",
  "deletePlatformSetting",
  "restorePlatformSetting",
  "putOrgSetting",
  "deleteOrgSetting",
  "restoreOrgSetting",
  "createLlmConfig",
  "updateLlmConfig",
  "deleteLlmConfig",
  "restoreLlmConfig",
  "createOrchestrator",
  "updateOrchestrator",
  "deleteOrchestrator",
  "restoreOrchestrator",
  "createCentralPoint",
  "updateCentralPoint",
  "deleteCentralPoint",
  "restoreCentralPoint",
  "registerSystemPlugin",
  "updateSystemPlugin",
  "registerOrgPlugin",
  "updateOrgPlugin",
  "createModel",
  "updateModel",
  "createConversation",
  "appendMessages",
  "compactMessages",
  "deleteConversation",
  "restoreConversation",
  "createUser",
  "updateUser",
  "resetUserPassword",
  "resetUserTwoFactor",
  "unlinkUserIdentity",
  "deleteUser",
  "restoreUser",
  "addMember",
  "removeMember",
  "grantOrgRole",
  "revokeOrgRole",
  "createRole",
  "updateRole",
  "grantRole",
  "revokeGrant",
  "deleteRole",
  "restoreRole",
  "createOAuthClient",
  "updateOAuthClient",
  "rotateOAuthClientSecret",
  "deleteOAuthClient",
  "restoreOAuthClient",
];
