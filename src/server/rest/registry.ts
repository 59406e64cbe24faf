import type { RouteSpec } from "./route";
import { apiKeyRoutes } from "./routes/api-keys";
import { meRoutes } from "./routes/me";
import { centralPointRoutes } from "./routes/central-points";
import { llmConfigRoutes } from "./routes/llm-configs";
import { orchestratorRoutes } from "./routes/orchestrators";
import { organizationRoutes } from "./routes/organizations";
import { settingRoutes } from "./routes/settings";
import { systemRoutes } from "./routes/system";

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
] as unknown as RouteSpec[];

export const routesAt = (path: string): RouteSpec[] => ROUTES.filter((r) => r.path === path);
