"use client";

import { META_MAX_BYTES, META_MAX_DEPTH, META_MAX_PROPERTIES } from "@/lib/credits";
import { metaSchema, type ApiKeyMeta } from "@/lib/schemas/api-keys";
import { TextAreaField } from "@/components/ui/fields";

// A key's metadata in the create and edit dialogs: a JSON object typed as text, checked against the
// bounds the server enforces before it is sent. Empty: no metadata.

export interface MetaValues {
  meta: string;
}

export const metaValues = (key: { meta: ApiKeyMeta } | null): MetaValues => ({
  meta: key && Object.keys(key.meta).length > 0 ? JSON.stringify(key.meta, null, 2) : "",
});

/** The metadata the text says; else the field's problem (and an empty object, never sent). */
export function metaInputOf(values: MetaValues, problem: (field: "meta", message: string) => void): ApiKeyMeta {
  if (values.meta.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(values.meta);
  } catch {
    problem("meta", 'Write a JSON object, like {"plan": "pro"}.');
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    problem("meta", 'Write a JSON object, like {"plan": "pro"}: not a list or a single value.');
    return {};
  }
  const checked = metaSchema.safeParse(parsed);
  if (!checked.success) {
    problem("meta", `The metadata ${checked.error.issues[0]?.message ?? "is not valid"}.`);
    return {};
  }
  return checked.data;
}

export function MetaField() {
  return (
    <TextAreaField
      name="meta"
      label="Metadata (optional)"
      mono
      rows={4}
      placeholder={'{\n  "plan": "pro"\n}'}
      hint={`Your own JSON object about the key (a plan, a customer id), returned with it and by verify. At most ${META_MAX_BYTES / 1024} KiB, ${META_MAX_PROPERTIES} top-level properties, ${META_MAX_DEPTH} levels deep. Never a secret: whoever reads the key reads it.`}
    />
  );
}
