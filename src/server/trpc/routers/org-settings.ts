import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { putOrgSettingInput, settingKey } from "@/lib/schemas/settings";
import { deleteOrgSetting, effectiveOrgSettings, listOrgSettings, putOrgSetting } from "@/server/services/settings/service";
import { createTRPCRouter, orgProcedure } from "../init";

// An organization's settings (tier 3) and its effective settings (each key's value and the tier
// it came from).

const orgInput = z.strictObject({ org_id: id });

export const orgSettingsRouter = createTRPCRouter({
  list: orgProcedure("svc:org:settings:read", { list: true })
    .input(orgInput)
    .query(({ ctx, input }) => listOrgSettings(ctx.actor, input.org_id)),

  /** Sets the organization's value for a key; FORBIDDEN (`not_overridable`) where the platform forbids it. */
  put: orgProcedure("svc:org:settings:write")
    .input(putOrgSettingInput.extend({ org_id: id, key: settingKey }))
    .mutation(({ ctx, input: { org_id, key, ...setting } }) => putOrgSetting(ctx.actor, org_id, key, setting)),

  delete: orgProcedure("svc:org:settings:write")
    .input(z.strictObject({ org_id: id, key: settingKey }))
    .mutation(({ ctx, input }) => deleteOrgSetting(ctx.actor, input.org_id, input.key)),

  effective: orgProcedure("svc:org:settings:read")
    .input(orgInput)
    .query(({ ctx, input }) => effectiveOrgSettings(ctx.actor, input.org_id)),
});
