"use client";

import type { RJSFSchema } from "@rjsf/utils";
import { useId } from "react";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { useDebounced } from "@/components/ui/use-debounced";

// The settings form a plugin's settings_schema makes, with its default_settings filled in. The
// form library is large: it is loaded in the browser only, when first shown or
// pointed at, never merely because the page is idle, so that a page stays within its weight.

const SettingsForm = onDemand(() => import("./settings-form").then((m) => m.SettingsForm), {
  ssr: false,
  idle: false,
  loading: () => <FormLoading />,
});

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

function parse(text: string): Parsed {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function Note({ children }: { children: string }) {
  return <p className="text-sm text-slate-600 dark:text-slate-300">{children}</p>;
}

interface SettingsPreviewProps {
  /** The settings_schema, as JSON text or as a value. */
  schema: string | Record<string, unknown>;
  /** The default_settings, likewise. */
  defaults: string | Record<string, unknown>;
}

export function SettingsPreview({ schema, defaults }: SettingsPreviewProps) {
  // The form (and the server's check of it) follows the JSON fields once typing pauses.
  const typedSchema = typeof schema === "string" ? schema : JSON.stringify(schema);
  const typedDefaults = typeof defaults === "string" ? defaults : JSON.stringify(defaults);
  const schemaText = useDebounced(typedSchema);
  const defaultsText = useDebounced(typedDefaults);
  const idPrefix = `settings${useId().replace(/[^a-zA-Z0-9]/g, "")}`;

  const parsedSchema = parse(schemaText);
  if (!parsedSchema.ok)
    return <Note>{`Write valid JSON in Settings schema to see its form (${parsedSchema.problem}).`}</Note>;
  if (!isObject(parsedSchema.value)) return <Note>The settings schema must be a JSON object to make a form.</Note>;
  if (Object.keys(parsedSchema.value).length === 0)
    return <Note>The settings schema is empty: any settings are accepted, and there are no fields to show.</Note>;

  const parsedDefaults = parse(defaultsText);
  const initial = parsedDefaults.ok ? parsedDefaults.value : {};
  return (
    <div className="space-y-2">
      {!parsedDefaults.ok && (
        <Note>{`Default settings are not valid JSON (${parsedDefaults.problem}); the form starts empty.`}</Note>
      )}
      {/* A new schema or new defaults start the form afresh. */}
      <SettingsForm
        key={`${schemaText}\u0000${defaultsText}`}
        schema={parsedSchema.value as RJSFSchema}
        initial={initial}
        idPrefix={idPrefix}
        outdated={schemaText !== typedSchema || defaultsText !== typedDefaults}
      />
    </div>
  );
}
