"use client";

import { useId, useRef, type ChangeEvent } from "react";
import { useFormContext } from "react-hook-form";
import { registerPluginInput, type Plugin, type RegisterPluginInput } from "@/lib/schemas/plugins";
import { AfterFirstFrame, Dialog } from "@/components/ui/dialog";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { CheckboxField, ChoiceGroup, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useFieldController, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, jsonObjectOf, splitList } from "@/components/ui/form-values";
import { hintClass, labelClass, linkButton } from "@/components/ui/styles";
import { useTRPCClient } from "@/trpc/react";
import { LOGO_TYPES, PluginLogo, readLogo } from "./logo";
import { SettingsPreview } from "./settings-preview";

// "Register version": one version of a system plugin. Checked here with the schema the server
// enforces (JSON fields parsed first); what only the server knows (is the settings schema a valid
// JSON Schema, do the defaults satisfy it, is the version new) comes back next to the field too.
// Under the JSON fields, the form the settings schema makes, filled with the default settings.

const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "top_k": { "type": "integer", "title": "Results", "minimum": 1 }
  },
  "required": ["top_k"]
}`;

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

interface RegisterValues {
  pid: string;
  version: string;
  name: string;
  description: string;
  tag: string;
  capabilities: string;
  is_specialized: boolean;
  is_scoped: boolean;
  stateless: boolean;
  enabled: boolean;
  logo_image: string | null;
  default_settings: string;
  settings_schema: string;
}

interface RegisterPluginDialogProps {
  open: boolean;
  onClose: () => void;
  onRegistered: (plugin: Plugin) => void;
  /** A version to start from: registering the next version of its pid. */
  template?: Plugin | null;
}

export function RegisterPluginDialog({ open, onClose, onRegistered, template = null }: RegisterPluginDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={template ? `Register a version of ${template.pid}` : "Register plugin version"}
      description={
        template
          ? `Starts from version ${template.version}. The highest semantic version of a plugin is its latest.`
          : "A new plugin, or a new version of one. The highest semantic version of a plugin is its latest."
      }
    >
      <RegisterForm template={template} onCancel={onClose} onRegistered={onRegistered} />
    </Dialog>
  );
}

/** A JSON field's errors below it name the place in its JSON: "Settings schema: properties.top_k". */
const jsonPlace = (label: string) => (rest: string[]) => `${label}: ${rest.join(".")}`;

export function RegisterForm({
  template,
  onCancel,
  onRegistered,
}: {
  template: Plugin | null;
  onCancel: () => void;
  onRegistered: (plugin: Plugin) => void;
}) {
  const client = useTRPCClient();
  const previewId = useId();
  const form = useSchemaForm<RegisterValues, RegisterPluginInput>({
    schema: registerPluginInput,
    defaultValues: {
      pid: template?.pid ?? "",
      version: "",
      name: template?.name ?? "",
      description: template?.description ?? "",
      tag: template?.tag ?? "",
      capabilities: template?.capabilities.join(", ") ?? "",
      is_specialized: template?.is_specialized ?? false,
      is_scoped: template?.is_scoped ?? false,
      stateless: template?.stateless ?? true,
      enabled: true,
      logo_image: template?.logo_image ?? null,
      default_settings: template ? pretty(template.default_settings) : "{}",
      settings_schema: template ? pretty(template.settings_schema) : "{}",
    },
    toInput: (
      { pid, version, description, tag, capabilities, default_settings, settings_schema, ...values },
      problem,
    ) => ({
      ...values,
      pid: pid.trim(),
      version: version.trim(),
      description: blankAsNull(description),
      tag: blankAsNull(tag),
      capabilities: splitList(capabilities),
      default_settings: jsonObjectOf(default_settings, "Default settings", (message) =>
        problem("default_settings", message),
      ),
      settings_schema: jsonObjectOf(settings_schema, "Settings schema", (message) =>
        problem("settings_schema", message),
      ),
    }),
    submit: async (input) => onRegistered(await client.plugins.register.mutate(input)),
  });
  const [schema, defaults] = form.watch(["settings_schema", "default_settings"]);

  return (
    <Form form={form} className="space-y-5">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          name="pid"
          label="Plugin ID"
          mono
          autoFocus={!template}
          autoComplete="off"
          placeholder="com.example.search"
          hint="Reverse-domain notation, the same for every version."
        />
        <TextField
          name="version"
          label="Version"
          mono
          autoFocus={!!template}
          autoComplete="off"
          placeholder="1.0.0"
          hint={template ? `A semantic version. The latest is ${template.version}.` : "A semantic version, like 1.4.0."}
        />
        <TextField name="name" label="Name" autoComplete="off" />
        <TextField name="tag" label="Tag" autoComplete="off" hint="Optional, like “search” or “beta”." />
      </div>
      <TextAreaField name="description" label="Description" rows={2} />
      <TextField
        name="capabilities"
        label="Capabilities"
        autoComplete="off"
        hint="Separated by commas, like “retrieval, summarization”."
      />

      <AfterFirstFrame className="min-h-[40rem]">
        <ChoiceGroup
          legend="Behaviour"
          hint="What orchestrators may expect of the plugin."
          className="mt-2 grid gap-3 sm:grid-cols-2"
        >
          <CheckboxField name="is_specialized" label="Specialized" hint="Serves one narrow task." />
          <CheckboxField name="is_scoped" label="Scoped" hint="Has scoped agents; grounded mode takes only these." />
          <CheckboxField name="stateless" label="Stateless" hint="Keeps nothing between calls." />
          <CheckboxField name="enabled" label="Enabled" hint="Orchestrators may use this version." />
        </ChoiceGroup>

        <LogoField />

        <TextAreaField
          name="settings_schema"
          label="Settings schema"
          labelFor={jsonPlace("Settings schema")}
          mono
          rows={8}
          hint={
            <>
              A JSON Schema (draft 2020-12) that every orchestrator’s settings for this plugin must satisfy.{" "}
              {schema.trim() === "{}" && (
                <button
                  type="button"
                  className={`${linkButton} text-sm`}
                  onClick={() => form.setValue("settings_schema", EXAMPLE_SCHEMA)}
                >
                  Start from an example
                </button>
              )}
            </>
          }
        />
        <TextAreaField
          name="default_settings"
          label="Default settings"
          labelFor={jsonPlace("Default settings")}
          mono
          rows={8}
          hint="A JSON object; it must satisfy the settings schema."
        />

        <section
          aria-labelledby={previewId}
          className="rounded-md border border-slate-200 bg-slate-50 p-4 dark:border-slate-700 dark:bg-slate-950"
        >
          <h3 id={previewId} className="text-sm font-semibold">
            Settings form preview
          </h3>
          <p className="mb-3 text-xs text-slate-500 dark:text-slate-400">
            The form the settings schema makes, filled with the default settings. Try values here; they are not saved.
          </p>
          {/* Enter in a preview field tries a value; it must not register the version. */}
          <div
            onKeyDown={(event) =>
              event.key === "Enter" && event.target instanceof HTMLInputElement && event.preventDefault()
            }
          >
            <SettingsPreview schema={schema} defaults={defaults} />
          </div>
        </section>
      </AfterFirstFrame>
      <DialogButtons onCancel={onCancel} label="Register version" pendingLabel="Registering…" />
    </Form>
  );
}

/** The logo: a raster image file read into a data: URL, checked before it is sent. */
function LogoField() {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const { setError, clearErrors } = useFormContext<RegisterValues>();
  const logoField = useFieldController("logo_image", "Logo");
  const logo = logoField.field.value as string | null;

  async function pickLogo(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const read = await readLogo(file);
    if ("problem" in read) {
      setError("logo_image", { type: "value", message: read.problem });
      event.target.value = "";
      return;
    }
    clearErrors("logo_image");
    logoField.field.onChange(read.dataUrl);
  }

  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        Logo
      </label>
      <div className="mt-1 flex flex-wrap items-center gap-3">
        {logo && <PluginLogo src={logo} size={40} />}
        <input
          ref={input}
          id={id}
          type="file"
          accept={LOGO_TYPES.join(",")}
          onChange={pickLogo}
          aria-invalid={logoField.message ? true : undefined}
          aria-describedby={describedBy(`${id}-hint`, logoField.message && `${id}-error`)}
          className="text-sm file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium dark:file:border-slate-700 dark:file:bg-slate-900"
        />
        {logo && (
          <button
            type="button"
            className={`${linkButton} text-sm`}
            onClick={() => {
              logoField.field.onChange(null);
              if (input.current) input.current.value = "";
            }}
          >
            Remove logo
          </button>
        )}
      </div>
      <p id={`${id}-hint`} className={hintClass}>
        Optional. PNG, JPEG, GIF or WebP, at most 256 KiB.
      </p>
      <FieldError id={`${id}-error`} message={logoField.message} />
    </div>
  );
}
