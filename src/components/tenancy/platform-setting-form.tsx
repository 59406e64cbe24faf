"use client";

import {
  putPlatformSettingInput,
  settingKey,
  SETTING_CATEGORIES,
  VALUE_TYPES,
  type PlatformSettingView,
  type PutPlatformSettingInput,
} from "@/lib/schemas/settings";
import { useTRPCClient } from "@/trpc/react";
import { valueOf } from "@/components/tenancy/values";
import { TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, orNull } from "@/components/ui/form-values";
import { SettingFields, settingValues, type SettingValues } from "./setting-fields";

// A platform setting's add/edit form (./platform-settings-screen.tsx): its value, type, category and
// whether organizations may override it.

const platformSettingForm = putPlatformSettingInput.extend({ key: settingKey });

type PlatformSettingValues = SettingValues & { category: string; description: string };

export function PlatformSettingForm({
  setting,
  onCancel,
  onSaved,
}: {
  setting: PlatformSettingView | null;
  onCancel: () => void;
  onSaved: (saved: PlatformSettingView) => void;
}) {
  const client = useTRPCClient();
  const kind = VALUE_TYPES.find((t) => t === setting?.value_type) ?? "string";
  const form = useSchemaForm<PlatformSettingValues, PutPlatformSettingInput & { key: string }>({
    schema: platformSettingForm,
    defaultValues: {
      ...settingValues(setting, kind),
      category: setting?.category ?? "",
      description: setting?.description ?? "",
    },
    toInput: ({ key, value, category, description, ...values }, problem) => ({
      ...values,
      key: key.trim(),
      value: valueOf(values.value_type, value, (message) => problem("value", message)),
      category: orNull(category),
      description: blankAsNull(description),
    }),
    submit: async (input) => onSaved(await client.platformSettings.put.mutate(input)),
  });

  return (
    <Form form={form} className="space-y-5">
      <SettingFields
        existing={setting !== null}
        placeholder="chat.max_turns"
        keyHint={
          setting
            ? "A key cannot be renamed: add a new one and delete this one."
            : "Dotted lower_snake_case, like telemetry.enabled."
        }
        typeHint="Values of this key, here and in instance configs, must have this type."
        overridableLabel="Organizations may override"
        overridableHint="Unchecked: organizations and their instances cannot set their own value for this key."
      >
        <TextField
          name="category"
          label="Category"
          autoComplete="off"
          list="platform-setting-categories"
          hint="Optional grouping. tier and policy settings govern the platform and are not inherited."
        />
        <datalist id="platform-setting-categories">
          {SETTING_CATEGORIES.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <TextAreaField name="description" label="Description" />
      </SettingFields>
      <DialogButtons onCancel={onCancel} label="Save platform setting" />
    </Form>
  );
}
