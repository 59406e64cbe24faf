"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type ChangeEvent, type FormEvent, type ReactNode } from "react";
import { registerPluginInput, type Plugin } from "@/lib/schemas/plugins";
import { Dialog } from "@/components/ui/dialog";
import { hintClass, inputClass, labelClass, linkButton } from "@/components/ui/styles";
import { DialogButtons } from "@/components/ui/form";
import { useTRPC } from "@/trpc/react";
import { LOGO_TYPES, PluginLogo, readLogo } from "./logo";
import { SettingsPreview } from "./settings-preview";
import { describedBy, FieldError } from "@/components/ui/field-error";
import { collectErrors, type FormErrors, serverErrors, zodErrors } from "@/components/ui/form-errors";
import { FormAlert } from "@/components/ui/states";

// "Register version": one version of a system plugin. Checked here with the schema the server
// enforces (JSON fields parsed first); what only the server knows (is the settings schema a valid
// JSON Schema, do the defaults satisfy it, is the version new) comes back next to the field too.
// Under the JSON fields, the form the settings schema makes, filled with the default settings.

const LABELS = {
  pid: "Plugin ID",
  version: "Version",
  name: "Name",
  description: "Description",
  tag: "Tag",
  capabilities: "Capabilities",
  is_specialized: "Specialized",
  is_scoped: "Scoped",
  stateless: "Stateless",
  enabled: "Enabled",
  logo_image: "Logo",
  default_settings: "Default settings",
  settings_schema: "Settings schema",
} as const;
type Field = keyof typeof LABELS;
type Errors = FormErrors<Field>;

const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "top_k": { "type": "integer", "title": "Results", "minimum": 1 }
  },
  "required": ["top_k"]
}`;

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A JSON field's text as an object, or the error to show next to it. */
function parseObject(text: string, field: "default_settings" | "settings_schema"): { value: Record<string, unknown> } | { error: string } {
  if (text.trim() === "") return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `${LABELS[field]} is not valid JSON: ${(error as Error).message}.` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: `${LABELS[field]} must be a JSON object.` };
  return { value: value as Record<string, unknown> };
}

const splitList = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

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

function TextField(props: {
  field: Field;
  value: string;
  onChange: (value: string) => void;
  errors: Errors;
  hint?: ReactNode;
  mono?: boolean;
  autoFocus?: boolean;
  placeholder?: string;
}) {
  const id = useId();
  const error = props.errors[props.field];
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {LABELS[props.field]}
      </label>
      <input
        id={id}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        autoFocus={props.autoFocus}
        autoComplete="off"
        spellCheck={false}
        placeholder={props.placeholder}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(props.hint !== undefined && `${id}-hint`, error && `${id}-error`)}
        className={`${inputClass} mt-1 ${props.mono ? "font-mono" : ""}`}
      />
      {props.hint !== undefined && (
        <p id={`${id}-hint`} className={hintClass}>
          {props.hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

function JsonField(props: { field: "default_settings" | "settings_schema"; value: string; onChange: (value: string) => void; errors: Errors; hint: ReactNode }) {
  const id = useId();
  const error = props.errors[props.field];
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {LABELS[props.field]}
      </label>
      <textarea
        id={id}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        rows={8}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
        className={`${inputClass} mt-1 font-mono text-xs`}
      />
      <p id={`${id}-hint`} className={hintClass}>
        {props.hint}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

function Flag({ label, hint, checked, onChange }: { label: string; hint: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div className="flex items-start gap-2">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={`${id}-hint`}
        className="mt-0.5 size-4 shrink-0 accent-brand-600"
      />
      <div>
        <label htmlFor={id} className="text-sm font-medium">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      </div>
    </div>
  );
}

function RegisterForm({ template, onCancel, onRegistered }: { template: Plugin | null; onCancel: () => void; onRegistered: (plugin: Plugin) => void }) {
  const trpc = useTRPC();
  const [pid, setPid] = useState(template?.pid ?? "");
  const [version, setVersion] = useState("");
  const [name, setName] = useState(template?.name ?? "");
  const [description, setDescription] = useState(template?.description ?? "");
  const [tag, setTag] = useState(template?.tag ?? "");
  const [capabilities, setCapabilities] = useState(template?.capabilities.join(", ") ?? "");
  const [isSpecialized, setSpecialized] = useState(template?.is_specialized ?? false);
  const [isScoped, setScoped] = useState(template?.is_scoped ?? false);
  const [stateless, setStateless] = useState(template?.stateless ?? true);
  const [enabled, setEnabled] = useState(true);
  const [logo, setLogo] = useState<string | null>(template?.logo_image ?? null);
  const [defaults, setDefaults] = useState(template ? pretty(template.default_settings) : "{}");
  const [schema, setSchema] = useState(template ? pretty(template.settings_schema) : "{}");
  const [errors, setErrors] = useState<Errors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const logoInput = useRef<HTMLInputElement>(null);
  const ids = { description: useId(), logo: useId(), flags: useId(), preview: useId() };

  const register = useMutation(
    trpc.plugins.register.mutationOptions({
      onSuccess: onRegistered,
      onError: (error) => setErrors(serverErrors(error, LABELS)),
    }),
  );

  // After a failed attempt, take the keyboard to the first field to fix.
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);

  async function pickLogo(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const read = await readLogo(file);
    if ("problem" in read) {
      setErrors((current) => ({ ...current, logo_image: read.problem }));
      event.target.value = "";
      return;
    }
    setLogo(read.dataUrl);
    setErrors(({ logo_image: _dropped, ...rest }) => rest);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: Errors = {};
    const settingsSchema = parseObject(schema, "settings_schema");
    const defaultSettings = parseObject(defaults, "default_settings");
    if ("error" in settingsSchema) found.settings_schema = settingsSchema.error;
    if ("error" in defaultSettings) found.default_settings = defaultSettings.error;
    const parsed = registerPluginInput.safeParse({
      pid: pid.trim(),
      version: version.trim(),
      name,
      description: description.trim() === "" ? null : description,
      tag: tag.trim() === "" ? null : tag,
      capabilities: splitList(capabilities),
      is_specialized: isSpecialized,
      is_scoped: isScoped,
      stateless,
      enabled,
      logo_image: logo,
      default_settings: "value" in defaultSettings ? defaultSettings.value : {},
      settings_schema: "value" in settingsSchema ? settingsSchema.value : {},
    });
    for (const [field, value] of [["pid", pid], ["version", version], ["name", name]] as const) {
      if (value.trim() === "") found[field] = `${LABELS[field]} must not be empty.`;
    }
    if (!parsed.success) Object.assign(found, { ...collectErrors(zodErrors(parsed.error), LABELS), ...found });
    setErrors(found);
    if (Object.keys(found).length === 0 && parsed.success) register.mutate(parsed.data);
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          field="pid"
          value={pid}
          onChange={setPid}
          errors={errors}
          mono
          autoFocus={!template}
          placeholder="com.example.search"
          hint="Reverse-domain notation, the same for every version."
        />
        <TextField
          field="version"
          value={version}
          onChange={setVersion}
          errors={errors}
          mono
          autoFocus={!!template}
          placeholder="1.0.0"
          hint={template ? `A semantic version. The latest is ${template.version}.` : "A semantic version, like 1.4.0."}
        />
        <TextField field="name" value={name} onChange={setName} errors={errors} />
        <TextField field="tag" value={tag} onChange={setTag} errors={errors} hint="Optional, like “search” or “beta”." />
      </div>

      <div>
        <label htmlFor={ids.description} className={labelClass}>
          {LABELS.description}
        </label>
        <textarea
          id={ids.description}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          rows={2}
          aria-invalid={errors.description ? true : undefined}
          aria-describedby={describedBy(errors.description && `${ids.description}-error`)}
          className={`${inputClass} mt-1`}
        />
        <FieldError id={`${ids.description}-error`} message={errors.description} />
      </div>

      <TextField
        field="capabilities"
        value={capabilities}
        onChange={setCapabilities}
        errors={errors}
        hint="Separated by commas, like “retrieval, summarization”."
      />

      <fieldset aria-describedby={`${ids.flags}-hint`}>
        <legend className={labelClass}>Behaviour</legend>
        <p id={`${ids.flags}-hint`} className={hintClass}>
          What orchestrators may expect of the plugin.
        </p>
        <div className="mt-2 grid gap-3 sm:grid-cols-2">
          <Flag label="Specialized" hint="Serves one narrow task." checked={isSpecialized} onChange={setSpecialized} />
          <Flag label="Scoped" hint="Has scoped agents; grounded mode takes only these." checked={isScoped} onChange={setScoped} />
          <Flag label="Stateless" hint="Keeps nothing between calls." checked={stateless} onChange={setStateless} />
          <Flag label="Enabled" hint="Orchestrators may use this version." checked={enabled} onChange={setEnabled} />
        </div>
      </fieldset>

      <div>
        <label htmlFor={ids.logo} className={labelClass}>
          {LABELS.logo_image}
        </label>
        <div className="mt-1 flex flex-wrap items-center gap-3">
          {logo && <PluginLogo src={logo} size={40} />}
          <input
            ref={logoInput}
            id={ids.logo}
            type="file"
            accept={LOGO_TYPES.join(",")}
            onChange={pickLogo}
            aria-invalid={errors.logo_image ? true : undefined}
            aria-describedby={describedBy(`${ids.logo}-hint`, errors.logo_image && `${ids.logo}-error`)}
            className="text-sm file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium dark:file:border-slate-700 dark:file:bg-slate-900"
          />
          {logo && (
            <button
              type="button"
              className={`${linkButton} text-sm`}
              onClick={() => {
                setLogo(null);
                if (logoInput.current) logoInput.current.value = "";
              }}
            >
              Remove logo
            </button>
          )}
        </div>
        <p id={`${ids.logo}-hint`} className={hintClass}>
          Optional. PNG, JPEG, GIF or WebP, at most 256 KiB.
        </p>
        <FieldError id={`${ids.logo}-error`} message={errors.logo_image} />
      </div>

      <JsonField
        field="settings_schema"
        value={schema}
        onChange={setSchema}
        errors={errors}
        hint={
          <>
            A JSON Schema (draft 2020-12) that every orchestrator’s settings for this plugin must satisfy.{" "}
            {schema.trim() === "{}" && (
              <button type="button" className={`${linkButton} text-sm`} onClick={() => setSchema(EXAMPLE_SCHEMA)}>
                Start from an example
              </button>
            )}
          </>
        }
      />
      <JsonField field="default_settings" value={defaults} onChange={setDefaults} errors={errors} hint="A JSON object; it must satisfy the settings schema." />

      <section aria-labelledby={ids.preview} className="rounded-md border border-slate-200 bg-slate-50 p-4 dark:border-slate-700 dark:bg-slate-950">
        <h3 id={ids.preview} className="text-sm font-semibold">
          Settings form preview
        </h3>
        <p className="mb-3 text-xs text-slate-500 dark:text-slate-400">
          The form the settings schema makes, filled with the default settings. Try values here; they are not saved.
        </p>
        {/* Enter in a preview field tries a value; it must not register the version. */}
        <div onKeyDown={(event) => event.key === "Enter" && event.target instanceof HTMLInputElement && event.preventDefault()}>
          <SettingsPreview schema={schema} defaults={defaults} />
        </div>
      </section>

      {/* Errors of no field shown here (the flags are checkboxes that cannot be wrong). */}
      <FormAlert message={[errors.form, errors.is_specialized, errors.is_scoped, errors.stateless, errors.enabled].filter(Boolean).join(" ") || undefined} />

      <DialogButtons onCancel={onCancel} pending={register.isPending} label="Register version" pendingLabel="Registering…" />
    </form>
  );
}
