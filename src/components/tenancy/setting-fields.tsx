"use client";

import { useFormContext } from "react-hook-form";
import type { ReactNode } from "react";
import { VALUE_TYPES, type ValueType } from "@/lib/schemas/settings";
import { CheckboxField, optionsOf, SelectField, TextField } from "@/components/ui/fields";
import { ValueInput, valueText } from "./values";

// What a platform setting and an organization setting are edited with alike: the key (fixed once
// it exists), the type of the value, the value as that type asks, and whether the tier below may
// override it.

export interface SettingValues {
  key: string;
  value_type: ValueType;
  value: string;
  overridable: boolean;
}

/** The form's values of `setting` (blank for a new one), its value written as `kind` asks. */
export const settingValues = (
  setting: { key: string; value: unknown; overridable: boolean } | null,
  kind: ValueType,
): SettingValues => ({
  key: setting?.key ?? "",
  value_type: kind,
  value: setting ? valueText(kind, setting.value) : "",
  overridable: setting?.overridable ?? false,
});

export function SettingFields({
  existing,
  placeholder,
  keyHint,
  typeHint,
  overridableLabel,
  overridableHint,
  children,
}: {
  existing: boolean;
  placeholder: string;
  keyHint: ReactNode;
  typeHint: ReactNode;
  overridableLabel: string;
  overridableHint: ReactNode;
  /** Fields between the value and the override box. */
  children?: ReactNode;
}) {
  const { watch, setValue } = useFormContext<SettingValues>();
  const kind = watch("value_type");
  return (
    <>
      <TextField
        name="key"
        label="Key"
        readOnly={existing}
        autoFocus={!existing}
        autoComplete="off"
        placeholder={placeholder}
        hint={keyHint}
      />
      <SelectField
        name="value_type"
        label="Value type"
        options={optionsOf(VALUE_TYPES)}
        hint={typeHint}
        onChange={(event) => {
          if (event.target.value === "boolean") setValue("value", "true");
        }}
      />
      <ValueInput kind={kind} />
      {children}
      <CheckboxField name="overridable" label={overridableLabel} hint={overridableHint} />
    </>
  );
}
