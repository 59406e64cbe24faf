import { listPluginsQuery, orgPluginParams, pluginListSchema, pluginParams, pluginSchema, registerPluginInput, updatePluginInput } from "@/lib/schemas/plugins";
import { orgIdParams } from "@/lib/schemas/organizations";
import { getPlugin, listPlugins, registerPlugin, setPluginEnabled } from "@/server/services/plugins/service";
import { defineRoute, RouteResult } from "../route";

const tag = "Plugins";
const SYSTEM = "/api/v1/plugins";
const ORG = "/api/v1/organizations/{org_id}/plugins";
const REGISTER =
  "`settings_schema` must be a valid JSON Schema and `default_settings` must satisfy it. `is_latest` marks the highest semantic version of the pid. A version registered twice answers 409.";

export const pluginRoutes = [
  defineRoute({
    method: "GET", path: SYSTEM, operationId: "listSystemPlugins", tag,
    summary: "List system plugins",
    description: "Filter with `pid` (its versions), `latest=true`, `enabled`.",
    access: { permission: "svc:plugins:read", anyOrg: true },
    query: listPluginsQuery,
    response: pluginListSchema,
    handler: ({ actor, query }) => listPlugins(actor, { source: "system" }, query),
  }),
  defineRoute({
    method: "POST", path: SYSTEM, operationId: "registerSystemPlugin", tag,
    summary: "Register a version of a system plugin",
    description: REGISTER,
    access: { permission: "svc:system:plugins:write" },
    body: registerPluginInput,
    response: pluginSchema,
    status: 201,
    errors: ["conflict"],
    handler: async ({ actor, body }) => {
      const plugin = await registerPlugin(actor, { source: "system" }, body);
      return new RouteResult(plugin, { status: 201, headers: { Location: `${SYSTEM}/${plugin.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: `${SYSTEM}/{plugin_id}`, operationId: "getSystemPlugin", tag,
    summary: "Read a system plugin version",
    access: { permission: "svc:plugins:read", anyOrg: true },
    params: pluginParams,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getPlugin(actor, { source: "system" }, params.plugin_id),
  }),
  defineRoute({
    method: "PATCH", path: `${SYSTEM}/{plugin_id}`, operationId: "updateSystemPlugin", tag,
    summary: "Enable or disable a system plugin version",
    access: { permission: "svc:system:plugins:write" },
    params: pluginParams,
    body: updatePluginInput,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ actor, params, body }) => setPluginEnabled(actor, { source: "system" }, params.plugin_id, body.enabled),
  }),
  defineRoute({
    method: "GET", path: ORG, operationId: "listOrgPlugins", tag, list: true,
    summary: "The plugin catalog an organization sees",
    description: "System plugins plus the organization's own.",
    access: { permission: "svc:plugins:read", org: "org_id" },
    params: orgIdParams,
    query: listPluginsQuery,
    response: pluginListSchema,
    handler: ({ actor, params, query }) => listPlugins(actor, { source: "org", orgId: params.org_id }, query),
  }),
  defineRoute({
    method: "POST", path: ORG, operationId: "registerOrgPlugin", tag,
    summary: "Register a version of an organization's own plugin",
    description: REGISTER,
    access: { permission: "svc:plugins:write", org: "org_id" },
    params: orgIdParams,
    body: registerPluginInput,
    response: pluginSchema,
    status: 201,
    errors: ["conflict", "not_found"],
    handler: async ({ actor, params, body }) => {
      const plugin = await registerPlugin(actor, { source: "org", orgId: params.org_id }, body);
      return new RouteResult(plugin, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/plugins/${plugin.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: `${ORG}/{plugin_id}`, operationId: "getOrgPlugin", tag,
    summary: "Read a plugin version the organization sees",
    access: { permission: "svc:plugins:read", org: "org_id" },
    params: orgPluginParams,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getPlugin(actor, { source: "org", orgId: params.org_id }, params.plugin_id),
  }),
  defineRoute({
    method: "PATCH", path: `${ORG}/{plugin_id}`, operationId: "updateOrgPlugin", tag,
    summary: "Enable or disable one of the organization's own plugin versions",
    access: { permission: "svc:plugins:write", org: "org_id" },
    params: orgPluginParams,
    body: updatePluginInput,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ actor, params, body }) => setPluginEnabled(actor, { source: "org", orgId: params.org_id }, params.plugin_id, body.enabled),
  }),
];
