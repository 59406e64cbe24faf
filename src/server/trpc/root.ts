import { createCallerFactory, createTRPCRouter } from "./init";
import { apiKeysRouter } from "./routers/api-keys";
import { centralPointsRouter } from "./routers/central-points";
import { conversationsRouter } from "./routers/conversations";
import { llmConfigsRouter } from "./routers/llm-configs";
import { orchestratorsRouter } from "./routers/orchestrators";
import { organizationsRouter } from "./routers/organizations";
import { orgSettingsRouter } from "./routers/org-settings";
import { platformSettingsRouter } from "./routers/platform-settings";
import { modelsRouter } from "./routers/models";
import { pluginsRouter } from "./routers/plugins";
import { usersRouter } from "./routers/users";
import { membersRouter } from "./routers/members";
import { oauthClientsRouter } from "./routers/oauth-clients";
import { rolesRouter } from "./routers/roles";

export const appRouter = createTRPCRouter({
  apiKeys: apiKeysRouter,
  models: modelsRouter,
  plugins: pluginsRouter,
  users: usersRouter,
  roles: rolesRouter,
  members: membersRouter,
  oauthClients: oauthClientsRouter,
  organizations: organizationsRouter,
  platformSettings: platformSettingsRouter,
  orgSettings: orgSettingsRouter,
  llmConfigs: llmConfigsRouter,
  orchestrators: orchestratorsRouter,
  centralPoints: centralPointsRouter,
  conversations: conversationsRouter,
});

export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a given context (server components and tests). */
export const createCaller = createCallerFactory(appRouter);
