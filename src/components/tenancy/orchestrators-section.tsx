"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { Orchestrator } from "@/lib/schemas/orchestrators";
import { FRAMEWORK_TYPES, ORCHESTRATOR_MODES, ORCHESTRATOR_STATUSES, ORCHESTRATOR_TIERS } from "@/lib/orchestrators";
import { useTRPC } from "@/trpc/react";
import { orchestratorListOptions, type OrchestratorFilters } from "./queries";
import { StatusBadge } from "@/components/ui/badge";
import { optionsOf, SelectField } from "@/components/ui/fields";
import { FilterBar, useListFilters } from "@/components/ui/filter-bar";
import { ResourceSection } from "@/components/ui/resource-section";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's orchestrator instances (tier 4): a filtered list, create, a detail view that
// edits what may change (framework_type and mode are shown read-only), the effective config with
// each key's source and the config_hash, and delete — refused while a central point refers to it.
// The form and the effective config load when a dialog first opens, not with the page.

const OrchestratorForm = onDemand(() => import("./orchestrator-form").then((m) => m.OrchestratorForm), {
  loading: () => <FormLoading />,
});
const EffectiveConfig = onDemand(() => import("./orchestrator-form").then((m) => m.EffectiveConfig), {
  loading: () => null,
});

const ANY = { value: "", label: "Any" };

const FILTERS = [
  { name: "status", label: "Status", values: ORCHESTRATOR_STATUSES },
  { name: "tier", label: "Tier", values: ORCHESTRATOR_TIERS },
  { name: "framework_type", label: "Framework", values: FRAMEWORK_TYPES },
  { name: "mode", label: "Mode", values: ORCHESTRATOR_MODES },
] as const;

export function OrchestratorsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const filters = useListFilters<{ q: string } & Omit<OrchestratorFilters, "q">>({ q: "" });
  const remove = useMutation(trpc.orchestrators.delete.mutationOptions());
  // The blank ones (no search, "Any") left out.
  const query = Object.fromEntries(Object.entries(filters.applied).filter(([, value]) => value)) as OrchestratorFilters;
  const list = useInfiniteQuery({ ...orchestratorListOptions(trpc, orgId, query), placeholderData: keepPreviousData });

  return (
    <ResourceSection<Orchestrator>
      title="Orchestrators"
      description="The organization’s assistant apps. Framework and mode are fixed at creation; each instance’s config overrides the settings above it where they allow it, and its config hash fingerprints the effective config."
      before={
        <FilterBar noun="orchestrators" filters={filters} placeholder="Name">
          {FILTERS.map(({ name, label, values }) => (
            <SelectField
              key={name}
              label={label}
              value={filters.values[name] ?? ""}
              onChange={(event) =>
                filters.set(
                  name,
                  (values as readonly string[]).includes(event.target.value)
                    ? (event.target.value as OrchestratorFilters[typeof name])
                    : undefined,
                )
              }
              options={[ANY, ...optionsOf(values)]}
              className="w-36"
            />
          ))}
        </FilterBar>
      }
      query={list}
      columns={["Name", "Framework", "Mode", "Tier", "Status", "Config hash", "Created"]}
      itemName={(o) => o.name}
      editLabel="Open"
      cells={(o) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            {o.name}
          </th>
          <td className={td}>{o.framework_type}</td>
          <td className={td}>{o.mode}</td>
          <td className={td}>{o.tier}</td>
          <td className={td}>
            <StatusBadge status={o.status} />
          </td>
          <td className={`${td} font-mono text-xs`}>{o.config_hash ?? "—"}</td>
          <WhenCell iso={o.created_at} />
        </>
      )}
      empty={{ title: "No orchestrators yet", body: "Create the organization’s first assistant app." }}
      filters={filters}
      create={{ label: "Create orchestrator" }}
      editor={{
        title: (o) => (o ? `Orchestrator “${o.name}”` : "Create orchestrator"),
        description: (o) => (o ? undefined : "Framework type and mode cannot change afterwards."),
        form: (o, controls) =>
          o ? (
            <div className="space-y-8">
              <OrchestratorForm orgId={orgId} instance={o} controls={controls} />
              <EffectiveConfig orgId={orgId} instance={o} />
            </div>
          ) : (
            <OrchestratorForm orgId={orgId} instance={null} controls={controls} />
          ),
      }}
      remove={{
        title: (o) => `Delete orchestrator “${o.name}”?`,
        body: () => (
          <>
            The instance stops serving at once. Its conversations stay, without an instance. A central point that refers
            to it must be pointed elsewhere or deleted first.
          </>
        ),
        confirmLabel: "Delete orchestrator",
        run: (o) => remove.mutateAsync({ org_id: orgId, orchestrator_id: o.id }),
        notice: (o) => `Orchestrator “${o.name}” deleted.`,
      }}
      refresh={() => queryClient.invalidateQueries(trpc.orchestrators.pathFilter())}
    />
  );
}
