import "server-only";
import { accountOperations } from "./account";
import { apiKeyOperations } from "./api-keys";
import { auditEventOperations } from "./audit-events";
import { centralPointOperations } from "./central-points";
import { conversationOperations } from "./conversations";
import { invitationOperations } from "./invitations";
import { domainOperations } from "./domains";
import { llmConfigOperations } from "./llm-configs";
import { memberOperations } from "./members";
import { modelOperations } from "./models";
import { oauthClientOperations } from "./oauth-clients";
import type { AnyOperation } from "./operation";
import { orchestratorOperations } from "./orchestrators";
import { organizationOperations } from "./organizations";
import { overviewOperations } from "./overview";
import { orgPluginOperations, pluginOperations } from "./plugins";
import { roleOperations } from "./roles";
import { scimOperations } from "./scim";
import { serviceAccountOperations } from "./service-accounts";
import { ssoConnectionOperations } from "./sso-connections";
import { orgSettingOperations, platformSettingOperations } from "./settings";
import { systemOperations } from "./system";
import { userOperations } from "./users";
import { orgWebhookOperations, webhookEventTypeOperations, webhookOperations } from "./webhooks";

// Every operation, grouped by resource: a group is a tRPC router of the console (its keys the
// procedures' names), and each operation with a path is a REST route.

export const OPERATION_GROUPS = {
  system: systemOperations,
  account: accountOperations,
  overview: overviewOperations,
  apiKeys: apiKeyOperations,
  organizations: organizationOperations,
  platformSettings: platformSettingOperations,
  orgSettings: orgSettingOperations,
  llmConfigs: llmConfigOperations,
  orchestrators: orchestratorOperations,
  centralPoints: centralPointOperations,
  plugins: pluginOperations,
  orgPlugins: orgPluginOperations,
  models: modelOperations,
  conversations: conversationOperations,
  users: userOperations,
  members: memberOperations,
  invitations: invitationOperations,
  serviceAccounts: serviceAccountOperations,
  roles: roleOperations,
  oauthClients: oauthClientOperations,
  auditEvents: auditEventOperations,
  webhooks: webhookOperations,
  orgWebhooks: orgWebhookOperations,
  domains: domainOperations,
  ssoConnections: ssoConnectionOperations,
  scim: scimOperations,
  webhookEventTypes: webhookEventTypeOperations,
};

export const OPERATIONS: readonly AnyOperation[] = Object.values(OPERATION_GROUPS).flatMap(
  (group) => Object.values(group) as AnyOperation[],
);
