"use client";

// Form itself, not @rjsf/core's index: that also exports a test registry which imports
// @rjsf/validator-ajv8 (Ajv, which needs eval), a package this app does not install.
import Form from "@rjsf/core/lib/components/Form.js";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { Component, useState, type ReactNode } from "react";
import { linkButton } from "@/components/ui/styles";
import { branchValidator } from "./branch-validator";
import { useSettingsCheck } from "./settings-check";

// A plugin's settings as a form, rendered from its settings_schema by react-jsonschema-form (core
// theme: plain HTML, styled here). The server checks the settings once typing pauses
// (settings-check.ts); each problem it names shows on its field. Loaded only in the browser (see
// settings-preview.tsx).

const UI_SCHEMA: UiSchema = { "ui:submitButtonOptions": { norender: true } };

// rjsf's core theme writes Bootstrap 3 class names; these give them the console's look.
const FORM_STYLE = [
  "text-sm",
  "[&_fieldset]:min-w-0 [&_fieldset]:space-y-3",
  "[&_fieldset_fieldset]:rounded-md [&_fieldset_fieldset]:border [&_fieldset_fieldset]:border-slate-200 [&_fieldset_fieldset]:p-3 dark:[&_fieldset_fieldset]:border-slate-700",
  "[&_legend]:mb-1 [&_legend]:text-sm [&_legend]:font-semibold",
  "[&_.control-label]:block [&_.control-label]:font-medium",
  "[&_.required]:ml-0.5 [&_.required]:text-red-700 dark:[&_.required]:text-red-400",
  "[&_.form-control]:mt-1 [&_.form-control]:block [&_.form-control]:w-full [&_.form-control]:rounded-md [&_.form-control]:border [&_.form-control]:border-slate-300 [&_.form-control]:bg-white [&_.form-control]:px-3 [&_.form-control]:py-1.5 [&_.form-control]:shadow-sm",
  "dark:[&_.form-control]:border-slate-700 dark:[&_.form-control]:bg-slate-900",
  "[&_.has-error_.form-control]:border-red-500",
  "[&_.field-description]:mt-0.5 [&_.field-description]:text-slate-500 dark:[&_.field-description]:text-slate-400",
  "[&_.help-block]:mt-1 [&_.help-block]:text-slate-500 dark:[&_.help-block]:text-slate-400",
  "[&_.error-detail]:mt-1 [&_.text-danger]:font-medium [&_.text-danger]:text-red-700 dark:[&_.text-danger]:text-red-400",
  "[&_.checkbox_label]:flex [&_.checkbox_label]:items-center [&_.checkbox_label]:gap-2 [&_input[type=checkbox]]:size-4 [&_input[type=checkbox]]:accent-brand-600",
  "[&_.radio]:flex [&_.radio]:items-center [&_.radio]:gap-2",
  "[&_.btn]:rounded-md [&_.btn]:border [&_.btn]:border-slate-300 [&_.btn]:px-2 [&_.btn]:py-1 [&_.btn]:text-xs dark:[&_.btn]:border-slate-700",
  "[&_.array-item]:flex [&_.array-item]:items-end [&_.array-item]:gap-2",
].join(" ");

/** Shows what went wrong instead of the form when rjsf cannot render a schema. */
class RenderBoundary extends Component<{ children: ReactNode }, { error: string | null }> {
  state = { error: null as string | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  render() {
    if (this.state.error !== null) {
      return (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-400">
          This schema cannot be shown as a form: {this.state.error}
        </p>
      );
    }
    return this.props.children;
  }
}

export interface SettingsFormProps {
  schema: RJSFSchema;
  /** The settings the form starts from. */
  initial: unknown;
  /** Distinguishes this form's element ids from other forms' on the page. */
  idPrefix: string;
  /** The schema or the starting settings are being edited: the form will follow, so no verdict yet. */
  outdated: boolean;
}

export function SettingsForm({ schema, initial, idPrefix, outdated }: SettingsFormProps) {
  const [data, setData] = useState<unknown>(initial);
  const check = useSettingsCheck(schema, data, outdated);
  return (
    <div className="space-y-3">
      <p aria-live="polite" className={`text-sm font-medium ${check.tone}`}>
        {check.summary}{" "}
        {check.retry && (
          <button type="button" onClick={check.retry} className={linkButton}>
            Check again
          </button>
        )}
      </p>
      <RenderBoundary>
        <Form
          tagName="div"
          schema={schema}
          uiSchema={UI_SCHEMA}
          validator={branchValidator}
          formData={data}
          onChange={(event) => setData(event.formData)}
          idPrefix={idPrefix}
          extraErrors={check.errors}
          noValidate
          showErrorList={false}
          noHtml5Validate
          className={FORM_STYLE}
        />
      </RenderBoundary>
    </div>
  );
}
