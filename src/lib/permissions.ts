// The permission catalog: the only list of known permissions, which of them
// are dangerous (they never reach an API key session), and the built-in roles.

type PermissionScope = "system" | "org";

export interface PermissionInfo {
  scope: PermissionScope;
  dangerous: boolean;
  allows: string;
}

export const PERMISSIONS = {
  "svc:system:admin": {
    scope: "system",
    dangerous: true,
    allows: "platform administration; holder counts as sys_admin",
  },
  "svc:system:api_keys:read": { scope: "system", dangerous: false, allows: "list API keys" },
  "svc:system:api_keys:write": { scope: "system", dangerous: true, allows: "create API keys" },
  "svc:system:api_keys:revoke": { scope: "system", dangerous: false, allows: "revoke API keys" },
  "svc:system:api_keys:verify": {
    scope: "system",
    dangerous: false,
    allows: "verify keys presented to the platform's own services, consuming their credits",
  },
  "svc:system:users:read": { scope: "system", dangerous: false, allows: "read users, memberships, identities" },
  "svc:system:users:write": {
    scope: "system",
    dangerous: true,
    allows: "create/update/delete users, set passwords, memberships",
  },
  "svc:system:roles:read": { scope: "system", dangerous: false, allows: "read roles and their permissions" },
  "svc:system:roles:write": {
    scope: "system",
    dangerous: true,
    allows: "create/edit/delete roles, grant/remove roles",
  },
  "svc:system:orgs:read": { scope: "system", dangerous: false, allows: "read every organization" },
  "svc:system:orgs:write": { scope: "system", dangerous: false, allows: "create/update organizations" },
  "svc:system:orgs:delete": { scope: "system", dangerous: true, allows: "delete organizations" },
  "svc:system:settings:read": { scope: "system", dangerous: false, allows: "read platform settings (tier 2)" },
  "svc:system:settings:write": { scope: "system", dangerous: false, allows: "write platform settings, tier quotas" },
  "svc:system:oauth_clients:read": { scope: "system", dangerous: false, allows: "read OAuth2 clients" },
  "svc:system:oauth_clients:write": {
    scope: "system",
    dangerous: true,
    allows: "create/update clients, issue client secrets",
  },
  "svc:system:plugins:write": { scope: "system", dangerous: false, allows: "manage system plugins" },
  "svc:system:models:write": { scope: "system", dangerous: false, allows: "manage the model catalog" },
  "svc:system:audit:read": { scope: "system", dangerous: false, allows: "read the audit trail" },
  "svc:system:webhooks:read": { scope: "system", dangerous: false, allows: "read platform webhook endpoints" },
  "svc:system:webhooks:write": {
    scope: "system",
    dangerous: false,
    allows: "create/update/delete platform webhook endpoints",
  },
  "svc:org:read": { scope: "org", dangerous: false, allows: "read the organization's profile" },
  "svc:org:write": { scope: "org", dangerous: false, allows: "update the organization's profile" },
  "svc:org:members:read": { scope: "org", dangerous: false, allows: "read members and their org roles" },
  "svc:org:members:write": { scope: "org", dangerous: true, allows: "add/remove members, grant org roles" },
  "svc:org:service_accounts:read": {
    scope: "org",
    dangerous: false,
    allows: "read the organization's service accounts and their API keys",
  },
  "svc:org:service_accounts:write": {
    scope: "org",
    dangerous: true,
    allows: "create/update/delete service accounts, issue, roll and revoke their API keys",
  },
  "svc:org:settings:read": {
    scope: "org",
    dangerous: false,
    allows: "read org settings (tier 3) and effective settings",
  },
  "svc:org:settings:write": { scope: "org", dangerous: false, allows: "write org settings" },
  "svc:org:llm_configs:read": {
    scope: "org",
    dangerous: false,
    allows: "read LLM configs (never the provider key itself)",
  },
  "svc:org:llm_configs:write": { scope: "org", dangerous: false, allows: "create/update/delete LLM configs" },
  "svc:orchestrators:read": {
    scope: "org",
    dangerous: false,
    allows: "read orchestrator instances and effective config",
  },
  "svc:orchestrators:write": { scope: "org", dangerous: false, allows: "create/update orchestrator instances" },
  "svc:orchestrators:delete": { scope: "org", dangerous: false, allows: "delete orchestrator instances" },
  "svc:central_points:read": { scope: "org", dangerous: false, allows: "read central points" },
  "svc:central_points:write": { scope: "org", dangerous: false, allows: "create/update/delete central points" },
  "svc:plugins:read": { scope: "org", dangerous: false, allows: "read the plugin catalog visible to the org" },
  "svc:plugins:write": { scope: "org", dangerous: false, allows: "manage the org's own plugins" },
  "svc:models:read": { scope: "org", dangerous: false, allows: "read the model catalog" },
  "svc:conversations:read": { scope: "org", dangerous: false, allows: "read conversations and message history" },
  "svc:conversations:write": {
    scope: "org",
    dangerous: false,
    allows: "create own conversations, append messages to them, delete them",
  },
  "svc:conversations:manage": {
    scope: "org",
    dangerous: false,
    allows: "read and write every conversation of the organization (the orchestrator runtime, org admins)",
  },
  "svc:org:audit:read": { scope: "org", dangerous: false, allows: "read the organization's audit trail" },
  "svc:org:webhooks:read": { scope: "org", dangerous: false, allows: "read the organization's webhook endpoints" },
  "svc:org:webhooks:write": {
    scope: "org",
    dangerous: false,
    allows: "create/update/delete the organization's webhook endpoints",
  },
  "svc:org:domains:read": { scope: "org", dangerous: false, allows: "read the organization's domains" },
  "svc:org:domains:write": {
    scope: "org",
    dangerous: true,
    allows: "add, verify and remove the organization's domains (verified ones let people join)",
  },
  "svc:org:invitations:read": { scope: "org", dangerous: false, allows: "read the organization's invitations" },
  "svc:org:invitations:write": {
    scope: "org",
    dangerous: true,
    allows: "invite people to the organization with its roles, resend and revoke invitations",
  },
  "svc:org:sso:read": { scope: "org", dangerous: false, allows: "read the organization's single sign-on connections" },
  "svc:org:sso:write": {
    scope: "org",
    dangerous: true,
    allows: "create, change and delete the organization's single sign-on connections (who signs in, with which role)",
  },
  "svc:org:scim:read": {
    scope: "org",
    dangerous: false,
    allows: "read the organization's directory sync: its SCIM tokens, provisioned people and groups, latest requests",
  },
  "svc:org:scim:write": {
    scope: "org",
    dangerous: true,
    allows:
      "create and revoke the organization's SCIM tokens (a directory's power over its members) and map its groups to roles",
  },
} as const satisfies Record<string, PermissionInfo>;

export type Permission = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

export const isPermission = (value: string): value is Permission => Object.hasOwn(PERMISSIONS, value);

export const isDangerous = (permission: Permission): boolean => PERMISSIONS[permission].dangerous;

export const ORG_PERMISSIONS = ALL_PERMISSIONS.filter((p) => PERMISSIONS[p].scope === "org");

export interface BuiltInRole {
  name: string;
  scope: PermissionScope;
  description: string;
  permissions: readonly Permission[];
}

export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  {
    name: "sys_admin",
    scope: "system",
    description: "Platform administrator: every permission everywhere.",
    permissions: ALL_PERMISSIONS,
  },
  {
    name: "org_admin",
    scope: "org",
    description: "Administers one organization: every organization permission.",
    permissions: ORG_PERMISSIONS,
  },
  {
    name: "org_member",
    scope: "org",
    description: "Member of one organization: reads it and takes part in conversations.",
    permissions: [
      ...ORG_PERMISSIONS.filter(
        (p) =>
          p.endsWith(":read") &&
          p !== "svc:org:audit:read" &&
          p !== "svc:org:webhooks:read" &&
          p !== "svc:org:domains:read" &&
          p !== "svc:org:invitations:read" &&
          p !== "svc:org:sso:read" &&
          p !== "svc:org:scim:read",
      ),
      "svc:conversations:write",
    ],
  },
];
