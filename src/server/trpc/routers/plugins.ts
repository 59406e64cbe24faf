import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { listPluginsInput, registerPluginInput, updatePluginInput } from "@/lib/schemas/plugins";
import { getPlugin, listPlugins, registerPlugin, setPluginEnabled, type PluginScope } from "@/server/services/plugins/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// The console's plugins screen: the system catalog. The same services and schemas as the REST
// routes under /api/v1/plugins.

const SYSTEM: PluginScope = { source: "system" };

export const pluginsRouter = createTRPCRouter({
  /** System plugin versions: all, one pid's (`pid`), the latest of each pid (`latest`), or enabled ones. */
  list: consoleProcedure("svc:plugins:read")
    .input(listPluginsInput)
    .query(({ ctx, input }) => listPlugins(ctx.actor, SYSTEM, input)),

  /** One system plugin version. */
  get: consoleProcedure("svc:plugins:read")
    .input(z.strictObject({ id }))
    .query(({ ctx, input }) => getPlugin(ctx.actor, SYSTEM, input.id)),

  /** Registers a version of a system plugin; is_latest follows the highest semantic version. */
  register: consoleProcedure("svc:system:plugins:write")
    .input(registerPluginInput)
    .mutation(({ ctx, input }) => registerPlugin(ctx.actor, SYSTEM, input)),

  /** Enables or disables one system plugin version. */
  setEnabled: consoleProcedure("svc:system:plugins:write")
    .input(updatePluginInput.extend({ id }))
    .mutation(({ ctx, input }) => setPluginEnabled(ctx.actor, SYSTEM, input.id, input.enabled)),
});
