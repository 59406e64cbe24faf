"use client";

import {
  BILLING_UNITS,
  createModelInput,
  MODEL_CATEGORIES,
  updateModelInput,
  type CreateModelInput,
  type Model,
  type UpdateModelInput,
} from "@/lib/schemas/models";
import { CheckboxField, optionsOf, SelectField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { orNull, splitList, valuesFrom } from "@/components/ui/form-values";
import type { EditorControls } from "@/components/ui/resource-section";
import { useTRPCClient } from "@/trpc/react";
import { CATEGORY_LABELS, UNIT_LABELS } from "./format";

// "Add model" and "Edit": one form. Prices are typed as text and sent as the text typed (checked
// with the schema the server enforces), never through a JS number, so 0.00000125 stays 0.00000125.
// An edit sends only what changed; provider and model_id never change. A second enabled model with
// the same provider and model_id is refused (409), and the form says so next to the model ID.

interface ModelValues {
  provider: string;
  model_id: string;
  display_name: string;
  aliases: string;
  model_category: string;
  input_price_per_unit: string;
  input_billing_unit: string;
  output_price_per_unit: string;
  output_billing_unit: string;
  currency: string;
  enabled: boolean;
}

const NEW_MODEL: ModelValues = {
  provider: "",
  model_id: "",
  display_name: "",
  aliases: "",
  model_category: "text_generation",
  input_price_per_unit: "",
  input_billing_unit: "per_1m_tokens",
  output_price_per_unit: "",
  output_billing_unit: "per_1m_tokens",
  currency: "USD",
  enabled: true,
};

const PRICE_HINT = "A decimal like 0.00000125, up to 8 decimal places. Empty when unknown.";

/** One side's price (a decimal string, never a number) and its billing unit. */
function PriceFields({ side }: { side: "input" | "output" }) {
  const label = side === "input" ? "Input" : "Output";
  return (
    <>
      <TextField
        name={`${side}_price_per_unit`}
        label={`${label} price`}
        hint={PRICE_HINT}
        inputMode="decimal"
        autoComplete="off"
        mono
      />
      <SelectField
        name={`${side}_billing_unit`}
        label={`${label} billing unit`}
        options={optionsOf(BILLING_UNITS, UNIT_LABELS)}
      />
    </>
  );
}

export function ModelForm({ model, controls }: { model: Model | null; controls: EditorControls }) {
  const client = useTRPCClient();
  const form = useSchemaForm<ModelValues, CreateModelInput | UpdateModelInput>({
    schema: model ? updateModelInput : createModelInput,
    defaultValues: { ...valuesFrom(model, NEW_MODEL), aliases: model?.aliases.join(", ") ?? "" },
    toInput: ({
      provider,
      model_id,
      display_name,
      aliases,
      input_price_per_unit,
      output_price_per_unit,
      currency,
      ...rest
    }) => {
      const values = {
        ...rest,
        display_name: orNull(display_name),
        aliases: splitList(aliases),
        input_price_per_unit: orNull(input_price_per_unit),
        output_price_per_unit: orNull(output_price_per_unit),
        currency: currency.trim().toUpperCase(),
      };
      if (!model) return { provider, model_id, ...values };
      // Only what changed, so an edit never undoes someone else's change to another field.
      return Object.fromEntries(
        Object.entries(values).filter(
          ([key, value]) => JSON.stringify(value) !== JSON.stringify(model[key as keyof typeof values]),
        ),
      );
    },
    submit: async (input) => {
      const saved = model
        ? await client.models.update.mutate({ model_config_id: model.id, ...input })
        : await client.models.create.mutate(input as CreateModelInput);
      controls.done(`${saved.model_id} ${model ? "saved" : "added"}.`);
    },
  });

  return (
    <Form form={form} className="space-y-5">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          name="provider"
          label="Provider"
          readOnly={!!model}
          autoFocus={!model}
          autoComplete="off"
          hint={model ? undefined : "Lowercase, like openai or anthropic."}
        />
        <TextField
          name="model_id"
          label="Model ID"
          readOnly={!!model}
          autoComplete="off"
          mono
          hint={model ? undefined : "As the provider's API names it, like gpt-4o."}
        />
        <TextField name="display_name" label="Display name" autoFocus={!!model} autoComplete="off" />
        <SelectField name="model_category" label="Category" options={optionsOf(MODEL_CATEGORIES, CATEGORY_LABELS)} />
      </div>
      <TextField
        name="aliases"
        label="Aliases"
        autoComplete="off"
        mono
        hint="Other names that find this model, separated by commas."
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <PriceFields side="input" />
        <PriceFields side="output" />
        <TextField
          name="currency"
          label="Currency"
          maxLength={3}
          autoComplete="off"
          mono
          className="[&_input]:w-28 [&_input]:uppercase"
          hint="An ISO 4217 code, like USD or EUR."
        />
      </div>
      <CheckboxField
        name="enabled"
        label="Enabled"
        hint="Orchestrators may use an enabled model; a provider has one enabled model per model ID."
      />
      <DialogButtons onCancel={controls.cancel} label={model ? "Save changes" : "Add model"} />
    </Form>
  );
}
