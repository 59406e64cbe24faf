"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  createOrchestratorInput,
  FRAMEWORK_TYPES,
  ORCHESTRATOR_MODES,
  ORCHESTRATOR_STATUSES,
  ORCHESTRATOR_TIERS,
  updateOrchestratorInput,
  type CreateOrchestratorInput,
  type Orchestrator,
  type UpdateOrchestratorInput,
} from "@/lib/schemas/orchestrators";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { EffectiveTable } from "./settings-section";
import { jsonText } from "@/components/tenancy/values";
import { optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, FormError, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, jsonObjectOf, valuesFrom } from "@/components/ui/form-values";
import type { EditorControls } from "@/components/ui/resource-section";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { primaryButton, secondaryButton } from "@/components/ui/styles";

// An orchestrator instance's dialog (./orchestrators-section.tsx): the form that creates one or edits
// what may change, and, for an existing one, its effective config.

interface OrchestratorValues {
  name: string;
  framework_type: string;
  mode: string;
  tier: string;
  status: string;
  whoami: string;
  config: string;
  plugin_settings: string;
}

/** The JSON objects an instance carries, typed as text. */
const JSON_FIELDS = [
  {
    name: "config",
    label: "Config",
    rows: 5,
    placeholder: '{"temperature": 0.2, "active_plugins": []}',
    hint: "JSON object of tier 4 settings.",
    whenCreating: "Keys the tiers above lock are refused.",
  },
  {
    name: "plugin_settings",
    label: "Plugin settings",
    rows: 4,
    placeholder: '{"com.example.search": {"max_results": 5}}',
    hint: "JSON object: settings per plugin id.",
    whenCreating: "Each is checked against its plugin’s settings schema.",
  },
] as const;

const NEW_ORCHESTRATOR: OrchestratorValues = {
  name: "",
  framework_type: "langgraph",
  mode: "supervisor",
  tier: "demand",
  status: "active",
  whoami: "",
  config: "",
  plugin_settings: "",
};

/** Creates an instance, or edits one (its framework type and mode shown read-only). */
export function OrchestratorForm({
  orgId,
  instance,
  controls,
}: {
  orgId: string;
  instance: Orchestrator | null;
  controls: EditorControls;
}) {
  const client = useTRPCClient();
  const [saved, setSaved] = useState("");
  const form = useSchemaForm<OrchestratorValues, CreateOrchestratorInput | UpdateOrchestratorInput>({
    schema: instance === null ? createOrchestratorInput : updateOrchestratorInput,
    defaultValues: instance
      ? {
          ...valuesFrom(instance, NEW_ORCHESTRATOR),
          config: jsonText(instance.config),
          plugin_settings: jsonText(instance.plugin_settings),
        }
      : NEW_ORCHESTRATOR,
    toInput: ({ framework_type, mode, whoami, config, plugin_settings, ...values }, problem) => ({
      ...values,
      ...(instance === null ? { framework_type, mode } : {}),
      whoami: blankAsNull(whoami),
      config: jsonObjectOf(config, "Config", (message) => problem("config", message)),
      plugin_settings: jsonObjectOf(plugin_settings, "Plugin settings", (message) =>
        problem("plugin_settings", message),
      ),
    }),
    submit: async (input) => {
      setSaved("");
      if (instance === null) {
        const created = await client.orchestrators.create.mutate({
          org_id: orgId,
          ...(input as CreateOrchestratorInput),
        });
        return controls.done(`Orchestrator “${created.name}” created.`);
      }
      const result = await client.orchestrators.update.mutate({
        org_id: orgId,
        orchestrator_id: instance.id,
        ...input,
      });
      setSaved("Changes saved.");
      controls.done(`Orchestrator “${result.name}” saved.`, { keepOpen: true });
    },
  });
  const pending = form.formState.isSubmitting;

  return (
    <Form form={form} className="space-y-5">
      {instance && (
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField name="framework_type" label="Framework type" readOnly hint="Fixed at creation." />
          <TextField name="mode" label="Mode" readOnly hint="Fixed at creation." />
        </div>
      )}
      <TextField name="name" label="Name" autoFocus autoComplete="off" />
      <div className="grid gap-5 sm:grid-cols-2">
        {instance === null && (
          <>
            <SelectField
              name="framework_type"
              label="Framework type"
              options={optionsOf(FRAMEWORK_TYPES)}
              hint="Fixed after creation."
            />
            <SelectField
              name="mode"
              label="Mode"
              options={optionsOf(ORCHESTRATOR_MODES)}
              hint="Fixed after creation. Grounded mode takes scoped plugins only."
            />
          </>
        )}
        <SelectField
          name="tier"
          label="Tier"
          options={optionsOf(ORCHESTRATOR_TIERS)}
          hint={instance ? undefined : "demand: started when used; hot: kept running."}
        />
        <SelectField name="status" label="Status" options={optionsOf(ORCHESTRATOR_STATUSES)} />
      </div>
      <TextAreaField
        name="whoami"
        label="Who am I"
        hint={instance ? undefined : "Optional: how the assistant introduces itself (whoami)."}
      />
      {JSON_FIELDS.map((field) => (
        <TextAreaField
          key={field.name}
          name={field.name}
          label={field.label}
          mono
          rows={field.rows}
          placeholder={field.placeholder}
          hint={instance ? field.hint : `${field.hint} ${field.whenCreating}`}
        />
      ))}
      {instance === null ? (
        <DialogButtons onCancel={controls.cancel} label="Create orchestrator" pendingLabel="Creating…" />
      ) : (
        <>
          <FormError />
          <p role="status" className="min-h-5 text-sm font-medium text-emerald-700 dark:text-emerald-300">
            {saved}
          </p>
          <div className="flex justify-end gap-3">
            <button type="button" onClick={controls.cancel} className={secondaryButton}>
              Close
            </button>
            <button type="submit" disabled={pending} className={primaryButton}>
              {pending ? "Saving…" : "Save changes"}
            </button>
          </div>
        </>
      )}
    </Form>
  );
}

export function EffectiveConfig({ orgId, instance }: { orgId: string; instance: Orchestrator }) {
  const trpc = useTRPC();
  const effective = useQuery(
    trpc.orchestrators.effectiveConfig.queryOptions({ org_id: orgId, orchestrator_id: instance.id }),
  );
  return (
    <section
      aria-labelledby="effective-config-heading"
      className="border-t border-slate-200 pt-6 dark:border-slate-800"
    >
      <h3 id="effective-config-heading" className="text-base font-semibold">
        Effective config
      </h3>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
        Every key that applies to this instance, and the tier it comes from.
      </p>
      {effective.isPending ? (
        <LoadingState label="Loading the effective config…" />
      ) : effective.isError ? (
        <ErrorState
          title="The effective config could not be loaded."
          error={effective.error}
          onRetry={() => effective.refetch()}
        />
      ) : (
        <div className="mt-3 space-y-3">
          <p className="text-sm">
            Config hash:{" "}
            <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs dark:bg-slate-800">
              {effective.data.config_hash ?? "none"}
            </code>
          </p>
          {effective.data.data.length === 0 ? (
            <EmptyState title="No settings in effect" body="No tier sets any key for this instance." />
          ) : (
            <EffectiveTable
              caption={`Effective config of ${instance.name}`}
              settings={effective.data.data}
              overridableLabel="Overridable"
            />
          )}
        </div>
      )}
    </section>
  );
}
