"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useDeferredValue, useId, useState } from "react";
import { MODEL_CATEGORIES, type Model } from "@/lib/schemas/models";
import { inputClass, labelClass, primaryButton, secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { CATEGORY_LABELS, categoryLabel, unitLabel } from "./format";
import { ModelDialog } from "./model-dialog";
import { modelListOptions, NO_FILTERS, type ModelFilters } from "./queries";
import { EmptyState, ErrorState, LoadingState, Notice, type ScreenNotice } from "@/components/ui/states";
import { Switch } from "@/components/ui/switch";
import { DataTable, td } from "@/components/ui/table";
import { PageHeader } from "@/components/ui/page-header";

// The model catalog: every model with its prices (exactly as stored: decimal strings), filtered by
// provider, category and status; "Add model", "Edit", and a switch per model.

function Price({ price, unit, currency }: { price: string | null; unit: string; currency: string }) {
  if (price === null) return <span className="text-slate-500 dark:text-slate-400">Not set</span>;
  return (
    <span className="whitespace-nowrap">
      <span className="font-mono">{price}</span> {currency}
      <span className="block text-xs text-slate-500 dark:text-slate-400">{unitLabel(unit)}</span>
    </span>
  );
}

function Filters({ filters, onChange }: { filters: ModelFilters; onChange: (filters: ModelFilters) => void }) {
  const ids = { provider: useId(), category: useId(), status: useId() };
  return (
    <div role="search" aria-label="Filter models" className="flex flex-wrap items-end gap-4">
      <div>
        <label htmlFor={ids.provider} className={labelClass}>
          Provider
        </label>
        <input
          id={ids.provider}
          type="search"
          value={filters.provider}
          onChange={(event) => onChange({ ...filters, provider: event.target.value })}
          placeholder="Any provider"
          autoComplete="off"
          className={`${inputClass} mt-1 w-48`}
        />
      </div>
      <div>
        <label htmlFor={ids.category} className={labelClass}>
          Category
        </label>
        <select
          id={ids.category}
          value={filters.category}
          onChange={(event) => onChange({ ...filters, category: event.target.value as ModelFilters["category"] })}
          className={`${inputClass} mt-1 w-48`}
        >
          <option value="">All categories</option>
          {MODEL_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {CATEGORY_LABELS[c]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={ids.status} className={labelClass}>
          Status
        </label>
        <select
          id={ids.status}
          value={filters.status}
          onChange={(event) => onChange({ ...filters, status: event.target.value as ModelFilters["status"] })}
          className={`${inputClass} mt-1 w-40`}
        >
          <option value="all">All</option>
          <option value="enabled">Enabled</option>
          <option value="disabled">Disabled</option>
        </select>
      </div>
    </div>
  );
}

export function ModelsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<ModelFilters>(NO_FILTERS);
  const [editing, setEditing] = useState<Model | "new" | null>(null);
  const [notice, setNotice] = useState<ScreenNotice | null>(null);
  const [pendingId, setPendingId] = useState<number | null>(null);
  // Typing a provider asks the server once the typing settles into a render.
  const applied = useDeferredValue(filters);

  const list = useInfiniteQuery({ ...modelListOptions(trpc, applied), placeholderData: keepPreviousData });
  const models = list.data?.pages.flatMap((page) => page.data) ?? [];
  const filtered = applied.provider.trim() !== "" || applied.category !== "" || applied.status !== "all";
  const refresh = () => queryClient.invalidateQueries(trpc.models.list.pathFilter());

  const toggle = useMutation(
    trpc.models.update.mutationOptions({
      onMutate: ({ model_config_id }) => setPendingId(model_config_id as number),
      onSuccess: (model) => setNotice({ text: `${model.model_id} ${model.enabled ? "enabled" : "disabled"}.`, error: false }),
      onError: (error) => setNotice({ text: `The change was not saved: ${messageOf(error)}`, error: true }),
      onSettled: async () => {
        await refresh();
        setPendingId(null);
      },
    }),
  );

  const addButton = (
    <button type="button" onClick={() => setEditing("new")} className={primaryButton}>
      Add model
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading models…" />;
    if (list.isError && models.length === 0) {
      return <ErrorState title="The models could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    }
    if (models.length === 0) {
      return filtered ? (
        <EmptyState
          title="No models match these filters."
          body="Change or clear the filters to see the rest of the catalog."
          action={
            <button type="button" onClick={() => setFilters(NO_FILTERS)} className={secondaryButton}>
              Clear filters
            </button>
          }
        />
      ) : (
        <EmptyState title="No models yet" body="Add the models providers offer, with their prices." action={addButton} />
      );
    }
    return (
      <DataTable caption="Models" columns={["Provider", "Model", "Category", "Input price", "Output price", "Enabled", { label: "Actions", hidden: true }]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more models" }}>
        {models.map((model) => (
          <tr key={model.id}>
            <td className={td}>{model.provider}</td>
            <th scope="row" className={`${td} min-w-48 text-left font-normal`}>
              <span className="font-mono font-medium break-all">{model.model_id}</span>
              {model.display_name && <span className="block text-slate-600 dark:text-slate-300">{model.display_name}</span>}
              {model.aliases.length > 0 && (
                <span className="block text-xs text-slate-500 dark:text-slate-400">
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
            <td className={`${td} text-right`}>
              <button
                type="button"
                onClick={() => setEditing(model)}
                aria-label={`Edit ${model.provider} ${model.model_id}`}
                className="rounded-md px-2 py-1 text-sm font-medium text-brand-600 hover:bg-brand-50 dark:text-brand-100 dark:hover:bg-slate-800"
              >
                Edit
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="models-heading">
      <PageHeader id="models-heading" title="Models" actions={addButton}>
        The models LLM providers offer and what they cost. Prices are exact decimals, kept to 8 decimal places.
      </PageHeader>

      <div className="mt-4">
        <Notice text={notice?.text ?? ""} error={notice?.error} />
      </div>

      <div className="mt-2">
        <Filters filters={filters} onChange={setFilters} />
      </div>

      <div className="mt-6">{content()}</div>

      <ModelDialog
        editing={editing}
        onClose={() => setEditing(null)}
        onSaved={(model, created) => {
          setEditing(null);
          setNotice({ text: `${model.model_id} ${created ? "added" : "saved"}.`, error: false });
          void refresh();
        }}
      />
    </section>
  );
}
