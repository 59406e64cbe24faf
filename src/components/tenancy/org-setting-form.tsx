"use client";

import {
  putOrgSettingInput,
  settingKey,
  type EffectiveSetting,
  type OrgSettingView,
  type PutOrgSettingInput,
} from "@/lib/schemas/settings";
import { useTRPCClient } from "@/trpc/react";
import { kindOf, valueOf } from "@/components/tenancy/values";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { SettingFields, settingValues, type SettingValues } from "./setting-fields";

// An organization setting's add/edit form (./settings-section.tsx), which says what the platform sets
// for the key before it is saved.

const orgSettingForm = putOrgSettingInput.extend({ key: settingKey });

export function OrgSettingForm({
  orgId,
  setting,
  effective,
  onCancel,
  onSaved,
}: {
  orgId: string;
  setting: OrgSettingView | null;
  effective: EffectiveSetting[];
  onCancel: () => void;
  onSaved: (saved: OrgSettingView) => void;
}) {
  const client = useTRPCClient();
  const kind = setting ? kindOf(setting.value) : "string";
  const form = useSchemaForm<SettingValues, PutOrgSettingInput & { key: string }>({
    schema: orgSettingForm,
    defaultValues: settingValues(setting, kind),
    // The value type only says how the value is typed: an organization setting does not store one.
    toInput: ({ key, value_type, value, overridable }, problem) => ({
      key: key.trim(),
      value: valueOf(value_type, value, (message) => problem("value", message)),
      overridable,
    }),
    submit: async (input) => onSaved(await client.orgSettings.put.mutate({ org_id: orgId, ...input })),
  });

  // What the platform says about this key, so the admin knows before saving.
  const key = form.watch("key").trim();
  const above = effective.find((s) => s.key === key && s.source === "platform");

  return (
    <Form form={form} className="space-y-5">
      <SettingFields
        existing={setting !== null}
        placeholder="chat.greeting"
        keyHint={
          above
            ? `The platform sets this key to ${JSON.stringify(above.value)}${above.overridable ? "; organizations may override it." : " and does not let organizations override it."}`
            : "Dotted lower_snake_case, like telemetry.enabled."
        }
        typeHint="How the value is entered. A platform setting of the same key decides the type it must have."
        overridableLabel="Instances may override"
        overridableHint="Whether orchestrator instances may set their own value for this key."
      />
      <DialogButtons onCancel={onCancel} label="Save setting" />
    </Form>
  );
}
