"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { MODEL_CATEGORIES } from "@/lib/models";
import type { Model } from "@/lib/schemas/models";
import { mutedText } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { CATEGORY_LABELS, categoryLabel, unitLabel } from "./format";
import { modelListOptions, NO_FILTERS, type ModelFilters } from "./queries";
import { optionsOf, SelectField } from "@/components/ui/fields";
import { FilterBar, useListFilters, type ListFilters } from "@/components/ui/filter-bar";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { Switch } from "@/components/ui/switch";
import { td } from "@/components/ui/table";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// The model catalog: every model with its prices (exactly as stored: decimal strings), searched by
// provider, model ID or name and filtered by category and status; "Add model", "Edit", and a switch
// per model. The form (with its validation) loads when first opened, not with the page.

const ModelForm = onDemand(() => import("./model-form").then((m) => m.ModelForm), { loading: () => <FormLoading /> });

function Price({ price, unit, currency }: { price: string | null; unit: string; currency: string }) {
  if (price === null) return <span className={mutedText}>Not set</span>;
  return (
    <span className="whitespace-nowrap">
      <span className="font-mono">{price}</span> {currency}
      <span className={`block text-xs ${mutedText}`}>{unitLabel(unit)}</span>
    </span>
  );
}

const STATUS_OPTIONS: { value: ModelFilters["status"]; label: string }[] = [
  { value: "all", label: "All" },
  { value: "enabled", label: "Enabled" },
  { value: "disabled", label: "Disabled" },
];

function Filters({ filters }: { filters: ListFilters<ModelFilters> }) {
  return (
    <FilterBar noun="models" filters={filters} placeholder="Provider, model ID or name">
      <SelectField
        label="Category"
        value={filters.values.category}
        onChange={(event) => filters.set("category", MODEL_CATEGORIES.find((c) => c === event.target.value) ?? "")}
        options={[{ value: "", label: "All categories" }, ...optionsOf(MODEL_CATEGORIES, CATEGORY_LABELS)]}
        className="w-48"
      />
      <SelectField
        label="Status"
        value={filters.values.status}
        onChange={(event) =>
          filters.set("status", STATUS_OPTIONS.find((o) => o.value === event.target.value)?.value ?? "all")
        }
        options={STATUS_OPTIONS}
        className="w-40"
      />
    </FilterBar>
  );
}

export function ModelsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const filters = useListFilters(NO_FILTERS);
  const notice = useNotice();
  const [pendingId, setPendingId] = useState<number | null>(null);
  const list = useInfiniteQuery({ ...modelListOptions(trpc, filters.applied), placeholderData: keepPreviousData });
  const refresh = () => queryClient.invalidateQueries(trpc.models.list.pathFilter());

  const toggle = useMutation(
    trpc.models.update.mutationOptions({
      onMutate: ({ model_config_id }) => setPendingId(model_config_id as number),
      onSuccess: (model) => notice.say(`${model.model_id} ${model.enabled ? "enabled" : "disabled"}.`),
      onError: (error) => notice.fail(`The change was not saved: ${messageOf(error)}`),
      onSettled: async () => {
        await refresh();
        setPendingId(null);
      },
    }),
  );

  return (
    <ResourceSection<Model>
      level={1}
      title="Models"
      description="The models LLM providers offer and what they cost. Prices are exact decimals, kept to 8 decimal places."
      notice={notice}
      before={<Filters filters={filters} />}
      query={list}
      columns={["Provider", "Model", "Category", "Input price", "Output price", "Enabled"]}
      itemName={(model) => `${model.provider} ${model.model_id}`}
      cells={(model) => (
        <>
          <td className={td}>{model.provider}</td>
          <th scope="row" className={`${td} min-w-48 text-left font-normal`}>
            <span className="font-mono font-medium wrap-anywhere">{model.model_id}</span>
            {model.display_name && (
              <span className="block text-slate-600 dark:text-slate-300">{model.display_name}</span>
            )}
            {model.aliases.length > 0 && (
              <span className={`block text-xs ${mutedText}`}>
                Also: <span className="font-mono">{model.aliases.join(", ")}</span>
              </span>
            )}
          </th>
          <td className={td}>{categoryLabel(model.model_category)}</td>
          <td className={td}>
            <Price price={model.input_price_per_unit} unit={model.input_billing_unit} currency={model.currency} />
          </td>
          <td className={td}>
            <Price price={model.output_price_per_unit} unit={model.output_billing_unit} currency={model.currency} />
          </td>
          <td className={`${td} whitespace-nowrap`}>
            <Switch
              checked={model.enabled}
              label={`Enable ${model.provider} ${model.model_id}`}
              disabled={pendingId === model.id}
              onChange={(enabled) => toggle.mutate({ model_config_id: model.id, enabled })}
            />
          </td>
        </>
      )}
      empty={{ title: "No models yet", body: "Add the models providers offer, with their prices." }}
      filters={filters}
      create={{ label: "Add model" }}
      editor={{
        title: (model) => (model ? `Edit ${model.model_id}` : "Add model"),
        description: (model) =>
          model
            ? `A model of ${model.provider}. Its provider and model ID do not change.`
            : "A model a provider offers, with its prices.",
        form: (model, controls) => <ModelForm model={model} controls={controls} />,
      }}
      refresh={refresh}
    />
  );
}
