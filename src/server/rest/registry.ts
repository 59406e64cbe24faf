import type { RouteSpec } from "./route";
import { apiKeyRoutes } from "./routes/api-keys";
import { meRoutes } from "./routes/me";
import { centralPointRoutes } from "./routes/central-points";
import { conversationRoutes } from "./routes/conversations";
import { modelRoutes } from "./routes/models";
import { pluginRoutes } from "./routes/plugins";
import { llmConfigRoutes } from "./routes/llm-configs";
import { orchestratorRoutes } from "./routes/orchestrators";
import { organizationRoutes } from "./routes/organizations";
import { settingRoutes } from "./routes/settings";
import { systemRoutes } from "./routes/system";
import { memberRoutes } from "./routes/members";
import { oauthClientRoutes } from "./routes/oauth-clients";
import { roleRoutes } from "./routes/roles";
import { userRoutes } from "./routes/users";

// Every REST route, in one list: the handlers, the OpenAPI document and the tests read it.
export const ROUTES: readonly RouteSpec[] = [
  ...systemRoutes,
  ...meRoutes,
  ...apiKeyRoutes,
  ...organizationRoutes,
  ...settingRoutes,
  ...llmConfigRoutes,
  ...orchestratorRoutes,
  ...centralPointRoutes,
  ...pluginRoutes,
  ...modelRoutes,
  ...conversationRoutes,
  ...userRoutes,
  ...memberRoutes,
  ...roleRoutes,
  ...oauthClientRoutes,
] as unknown as RouteSpec[];

export const routesAt = (path: string): RouteSpec[] => ROUTES.filter((r) => r.path === path);
