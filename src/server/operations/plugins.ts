import "server-only";
import {
  checkSettingsInput,
  listPluginsQuery,
  orgPluginParams,
  pluginListSchema,
  pluginParams,
  pluginSchema,
  registerPluginInput,
  settingsCheckSchema,
  updatePluginInput,
} from "@/lib/schemas/plugins";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  getPlugin,
  listPlugins,
  registerPlugin,
  setPluginEnabled,
  type PluginScope,
} from "@/server/services/plugins/service";
import { checkSettings } from "@/server/services/plugins/json-schema";
import { defineOperation } from "./operation";

// The plugin catalog: system plugins (every organization reads them) and each organization's own.

const tag = "Plugins";
const SYSTEM = "/api/v1/plugins";
const ORG = "/api/v1/organizations/{org_id}/plugins";
const system: PluginScope = { source: "system" };
const inOrg = (orgId: string): PluginScope => ({ source: "org", orgId });
const readAnywhere = { permission: "svc:plugins:read", anyOrg: true } as const;
const orgRead = { permission: "svc:plugins:read", org: "org_id" } as const;
const orgWrite = { permission: "svc:plugins:write", org: "org_id" } as const;
const REGISTER =
  "`settings_schema` must be a valid JSON Schema and `default_settings` must satisfy it. `is_latest` marks the highest semantic version of the pid. A version registered twice answers 409.";

export const pluginOperations = {
  list: defineOperation({
    id: "listSystemPlugins",
    method: "GET",
    path: SYSTEM,
    tag,
    summary: "List system plugins",
    description: "Filter with `pid` (its versions), `latest=true`, `enabled`.",
    access: readAnywhere,
    query: listPluginsQuery,
    response: pluginListSchema,
    handler: ({ query, ...ctx }) => listPlugins(ctx, system, query),
  }),
  register: defineOperation({
    id: "registerSystemPlugin",
    method: "POST",
    path: SYSTEM,
    tag,
    summary: "Register a version of a system plugin",
    description: REGISTER,
    access: { permission: "svc:system:plugins:write" },
    body: registerPluginInput,
    response: pluginSchema,
    created: (p) => p.id,
    errors: ["conflict"],
    handler: ({ body, ...ctx }) => registerPlugin(ctx, system, body),
  }),
  get: defineOperation({
    id: "getSystemPlugin",
    method: "GET",
    path: `${SYSTEM}/{plugin_id}`,
    tag,
    summary: "Read a system plugin version",
    access: readAnywhere,
    params: pluginParams,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getPlugin(ctx, system, params.plugin_id),
  }),
  // The settings form's live check (console only): what registering would answer, from the same
  // code, so the console and the API cannot disagree. A read (GET): nothing is written or audited.
  // Its access is the plugin catalog's: whoever sees a version's settings form, or registers one
  // (which the console leaves to sys_admins, who hold every permission).
  checkSettings: defineOperation({
    id: "checkPluginSettings",
    method: "GET",
    path: null,
    tag,
    summary: "Check settings against a settings schema, as registering a plugin does",
    access: readAnywhere,
    query: checkSettingsInput,
    response: settingsCheckSchema,
    handler: ({ query }) => checkSettings(query.settings_schema, query.settings, "settings"),
  }),
  setEnabled: defineOperation({
    id: "updateSystemPlugin",
    method: "PATCH",
    path: `${SYSTEM}/{plugin_id}`,
    tag,
    summary: "Enable or disable a system plugin version",
    access: { permission: "svc:system:plugins:write" },
    params: pluginParams,
    body: updatePluginInput,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => setPluginEnabled(ctx, system, params.plugin_id, body.enabled),
  }),
};

export const orgPluginOperations = {
  list: defineOperation({
    id: "listOrgPlugins",
    method: "GET",
    path: ORG,
    tag,
    summary: "The plugin catalog an organization sees",
    description: "System plugins plus the organization's own.",
    access: { ...orgRead, list: true },
    params: orgIdParams,
    query: listPluginsQuery,
    response: pluginListSchema,
    handler: ({ params, query, ...ctx }) => listPlugins(ctx, inOrg(params.org_id), query),
  }),
  register: defineOperation({
    id: "registerOrgPlugin",
    method: "POST",
    path: ORG,
    tag,
    summary: "Register a version of an organization's own plugin",
    description: REGISTER,
    access: orgWrite,
    params: orgIdParams,
    body: registerPluginInput,
    response: pluginSchema,
    created: (p) => p.id,
    errors: ["conflict", "not_found"],
    handler: ({ params, body, ...ctx }) => registerPlugin(ctx, inOrg(params.org_id), body),
  }),
  get: defineOperation({
    id: "getOrgPlugin",
    method: "GET",
    path: `${ORG}/{plugin_id}`,
    tag,
    summary: "Read a plugin version the organization sees",
    access: orgRead,
    params: orgPluginParams,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getPlugin(ctx, inOrg(params.org_id), params.plugin_id),
  }),
  setEnabled: defineOperation({
    id: "updateOrgPlugin",
    method: "PATCH",
    path: `${ORG}/{plugin_id}`,
    tag,
    summary: "Enable or disable one of the organization's own plugin versions",
    access: orgWrite,
    params: orgPluginParams,
    body: updatePluginInput,
    response: pluginSchema,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => setPluginEnabled(ctx, inOrg(params.org_id), params.plugin_id, body.enabled),
  }),
};
