import { z } from "zod";
import { putPlatformSettingInput, settingKey } from "@/lib/schemas/settings";
import { deletePlatformSetting, listPlatformSettings, putPlatformSetting } from "@/server/services/settings/service";
import { consoleProcedure, createTRPCRouter } from "../init";

// Platform settings (tier 2), including the tier quotas (`tier.<name>`).

export const platformSettingsRouter = createTRPCRouter({
  list: consoleProcedure("svc:system:settings:read").query(({ ctx }) => listPlatformSettings(ctx.actor)),

  /** Creates or replaces a setting; the value must match `value_type`. */
  put: consoleProcedure("svc:system:settings:write")
    .input(putPlatformSettingInput.extend({ key: settingKey }))
    .mutation(({ ctx, input: { key, ...setting } }) => putPlatformSetting(ctx.actor, key, setting)),

  delete: consoleProcedure("svc:system:settings:write")
    .input(z.strictObject({ key: settingKey }))
    .mutation(({ ctx, input }) => deletePlatformSetting(ctx.actor, input.key)),
});
