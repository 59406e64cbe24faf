"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import {
  createOrchestratorInput,
  FRAMEWORK_TYPES,
  ORCHESTRATOR_MODES,
  ORCHESTRATOR_STATUSES,
  ORCHESTRATOR_TIERS,
  updateOrchestratorInput,
  type Orchestrator,
} from "@/lib/schemas/orchestrators";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton, secondaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { orchestratorListOptions, type OrchestratorFilters } from "./queries";
import { EffectiveTable } from "./settings-section";
import { jsonText, parseJsonObject } from "@/components/tenancy/values";
import { StatusBadge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DialogButtons, optionsOf, SelectField, TextAreaField, TextField, useDebounced, useFormErrors } from "@/components/ui/form";
import type { FormErrors } from "@/components/ui/form-errors";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// An organization's orchestrator instances (tier 4): a filtered list, create, a detail view that
// edits what may change (framework_type and mode are shown read-only), the effective config with
// each key's source and the config_hash, and delete — refused while a central point refers to it.

const ANY = { value: "", label: "Any" };


export function OrchestratorsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [filters, setFilters] = useState<Omit<OrchestratorFilters, "q">>({});
  const [creating, setCreating] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Orchestrator | null>(null);
  const [notice, setNotice] = useState("");
  const q = useDebounced(search.trim());
  const remove = useMutation(trpc.orchestrators.delete.mutationOptions());

  const query: OrchestratorFilters = { ...(q ? { q } : {}), ...filters };
  const list = useInfiniteQuery({ ...orchestratorListOptions(trpc, orgId, query), placeholderData: keepPreviousData });
  const instances = list.data?.pages.flatMap((page) => page.data) ?? [];
  const open = instances.find((o) => o.id === openId) ?? null;
  const refresh = () => queryClient.invalidateQueries(trpc.orchestrators.pathFilter());

  const setFilter = (name: keyof typeof filters) => (event: { target: { value: string } }) =>
    setFilters((f) => {
      const next = { ...f, [name]: event.target.value || undefined };
      if (!event.target.value) delete next[name];
      return next;
    });

  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create orchestrator
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading orchestrators…" />;
    if (list.isError && instances.length === 0) return <ErrorState title="The orchestrators could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (instances.length === 0) {
      return Object.keys(query).length > 0 ? (
        <EmptyState title="No orchestrator matches." body="Change the search or the filters to see more." />
      ) : (
        <EmptyState title="No orchestrators yet" body="Create the organization’s first assistant app." action={createButton} />
      );
    }
    return (
      <DataTable caption="Orchestrators" columns={["Name", "Framework", "Mode", "Tier", "Status", "Config hash", "Created", { label: "Actions", hidden: true }]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more orchestrators" }}>
        {instances.map((o) => (
          <tr key={o.id}>
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
            <td className={td}>
              <When iso={o.created_at} />
            </td>
            <RowActions
              actions={[
                { label: "Open", ariaLabel: `Open ${o.name}`, onClick: () => setOpenId(o.id) },
                { label: "Delete", ariaLabel: `Delete ${o.name}`, onClick: () => setDeleting(o), danger: true },
              ]}
            />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="orchestrators-heading">
      <PageHeader level={2} id="orchestrators-heading" title="Orchestrators" actions={createButton}>
        The organization’s assistant apps. Framework and mode are fixed at creation; each instance’s config overrides the settings above it
        where they allow it, and its config hash fingerprints the effective config.
      </PageHeader>

      <div role="search" aria-label="Find orchestrators" className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
        <TextField label="Search orchestrators" type="search" value={search} onChange={(event) => setSearch(event.target.value)} placeholder="Name" autoComplete="off" />
        <SelectField label="Status" value={filters.status ?? ""} onChange={setFilter("status")} options={[ANY, ...optionsOf(ORCHESTRATOR_STATUSES)]} />
        <SelectField label="Tier" value={filters.tier ?? ""} onChange={setFilter("tier")} options={[ANY, ...optionsOf(ORCHESTRATOR_TIERS)]} />
        <SelectField label="Framework" value={filters.framework_type ?? ""} onChange={setFilter("framework_type")} options={[ANY, ...optionsOf(FRAMEWORK_TYPES)]} />
        <SelectField label="Mode" value={filters.mode ?? ""} onChange={setFilter("mode")} options={[ANY, ...optionsOf(ORCHESTRATOR_MODES)]} />
      </div>

      <div className="mt-4">
        <Notice text={notice} />
      </div>
      <div className="mt-2">{content()}</div>

      <Dialog open={creating} onClose={() => setCreating(false)} title="Create orchestrator" description="Framework type and mode cannot change afterwards.">
        <CreateOrchestratorForm
          orgId={orgId}
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setNotice(`Orchestrator “${created.name}” created.`);
            void refresh();
          }}
        />
      </Dialog>

      <Dialog open={open !== null} onClose={() => setOpenId(null)} title={open ? `Orchestrator “${open.name}”` : "Orchestrator"}>
        {open && (
          <OrchestratorDetail
            orgId={orgId}
            instance={open}
            onClose={() => setOpenId(null)}
            onSaved={(saved) => {
              setNotice(`Orchestrator “${saved.name}” saved.`);
              void refresh();
            }}
          />
        )}
      </Dialog>

      <ConfirmDialog
        subject={deleting}
        title={(o) => `Delete orchestrator “${o.name}”?`}
        body={() => <>The instance stops serving at once. Its conversations stay, without an instance. A central point that refers to it must be pointed elsewhere or deleted first.</>}
        confirmLabel="Delete orchestrator"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(o) => remove.mutateAsync({ org_id: orgId, orchestrator_id: o.id })}
        onDone={(o) => {
          setDeleting(null);
          setNotice(`Orchestrator “${o.name}” deleted.`);
          void refresh();
        }}
      />
    </section>
  );
}

const LABELS = {
  name: "Name",
  framework_type: "Framework type",
  mode: "Mode",
  tier: "Tier",
  status: "Status",
  whoami: "Who am I",
  config: "Config",
  plugin_settings: "Plugin settings",
} as const;

function CreateOrchestratorForm({ orgId, onCancel, onCreated }: { orgId: string; onCancel: () => void; onCreated: (created: Orchestrator) => void }) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [values, setValues] = useState({
    name: "",
    framework_type: "langgraph",
    mode: "supervisor",
    tier: "demand",
    status: "active",
    whoami: "",
    config: "",
    plugin_settings: "",
  });
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: event.target.value }));
  const create = useMutation(trpc.orchestrators.create.mutationOptions({ onSuccess: onCreated, onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: FormErrors<keyof typeof LABELS> = {};
    const config = parseJsonObject(values.config, "Config");
    const pluginSettings = parseJsonObject(values.plugin_settings, "Plugin settings");
    if (!config.ok) found.config = config.message;
    if (!pluginSettings.ok) found.plugin_settings = pluginSettings.message;
    const input = form.check(createOrchestratorInput, {
      ...values,
      whoami: values.whoami.trim() === "" ? null : values.whoami,
      config: config.ok ? config.value : {},
      plugin_settings: pluginSettings.ok ? pluginSettings.value : {},
    }, found);
    if (input) create.mutate({ org_id: orgId, ...input });
  }

  const { errors } = form;
  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField label="Name" value={values.name} onChange={set("name")} error={errors.name} autoFocus autoComplete="off" />
      <div className="grid gap-5 sm:grid-cols-2">
        <SelectField label="Framework type" value={values.framework_type} onChange={set("framework_type")} options={optionsOf(FRAMEWORK_TYPES)} error={errors.framework_type} hint="Fixed after creation." />
        <SelectField label="Mode" value={values.mode} onChange={set("mode")} options={optionsOf(ORCHESTRATOR_MODES)} error={errors.mode} hint="Fixed after creation. Grounded mode takes scoped plugins only." />
        <SelectField label="Tier" value={values.tier} onChange={set("tier")} options={optionsOf(ORCHESTRATOR_TIERS)} error={errors.tier} hint="demand: started when used; hot: kept running." />
        <SelectField label="Status" value={values.status} onChange={set("status")} options={optionsOf(ORCHESTRATOR_STATUSES)} error={errors.status} />
      </div>
      <TextAreaField label="Who am I" value={values.whoami} onChange={set("whoami")} error={errors.whoami} hint="Optional: how the assistant introduces itself (whoami)." />
      <TextAreaField
        label="Config"
        mono
        rows={5}
        value={values.config}
        onChange={set("config")}
        error={errors.config}
        placeholder='{"temperature": 0.2, "active_plugins": []}'
        hint="JSON object of tier 4 settings. Keys the tiers above lock are refused."
      />
      <TextAreaField
        label="Plugin settings"
        mono
        rows={4}
        value={values.plugin_settings}
        onChange={set("plugin_settings")}
        error={errors.plugin_settings}
        placeholder='{"com.example.search": {"max_results": 5}}'
        hint="JSON object: settings per plugin id, checked against each plugin’s settings schema."
      />
      <FormAlert message={errors.form} />
      <DialogButtons onCancel={onCancel} pending={create.isPending} label="Create orchestrator" pendingLabel="Creating…" />
    </form>
  );
}

function OrchestratorDetail({ orgId, instance, onClose, onSaved }: { orgId: string; instance: Orchestrator; onClose: () => void; onSaved: (saved: Orchestrator) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const effective = useQuery(trpc.orchestrators.effectiveConfig.queryOptions({ org_id: orgId, orchestrator_id: instance.id }));
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [values, setValues] = useState({
    name: instance.name,
    tier: instance.tier,
    status: instance.status,
    whoami: instance.whoami ?? "",
    config: jsonText(instance.config),
    plugin_settings: jsonText(instance.plugin_settings),
  });
  const [saved, setSaved] = useState("");
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: event.target.value }));
  const update = useMutation(
    trpc.orchestrators.update.mutationOptions({
      onSuccess: (result) => {
        setSaved("Changes saved.");
        void queryClient.invalidateQueries(trpc.orchestrators.effectiveConfig.queryFilter({ org_id: orgId, orchestrator_id: instance.id }));
        onSaved(result);
      },
      onError: (error) => {
        setSaved("");
        form.fromServer(error);
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: FormErrors<keyof typeof LABELS> = {};
    const config = parseJsonObject(values.config, "Config");
    const pluginSettings = parseJsonObject(values.plugin_settings, "Plugin settings");
    if (!config.ok) found.config = config.message;
    if (!pluginSettings.ok) found.plugin_settings = pluginSettings.message;
    const input = form.check(updateOrchestratorInput, {
      name: values.name,
      tier: values.tier,
      status: values.status,
      whoami: values.whoami.trim() === "" ? null : values.whoami,
      ...(config.ok ? { config: config.value } : {}),
      ...(pluginSettings.ok ? { plugin_settings: pluginSettings.value } : {}),
    }, found);
    setSaved("");
    if (input) update.mutate({ org_id: orgId, orchestrator_id: instance.id, ...input });
  }

  const { errors } = form;
  return (
    <div className="space-y-8">
      <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField label="Framework type" value={instance.framework_type} readOnly error={errors.framework_type} hint="Fixed at creation." />
          <TextField label="Mode" value={instance.mode} readOnly error={errors.mode} hint="Fixed at creation." />
        </div>
        <TextField label="Name" value={values.name} onChange={set("name")} error={errors.name} autoFocus autoComplete="off" />
        <div className="grid gap-5 sm:grid-cols-2">
          <SelectField label="Tier" value={values.tier} onChange={set("tier")} options={optionsOf(ORCHESTRATOR_TIERS)} error={errors.tier} />
          <SelectField label="Status" value={values.status} onChange={set("status")} options={optionsOf(ORCHESTRATOR_STATUSES)} error={errors.status} />
        </div>
        <TextAreaField label="Who am I" value={values.whoami} onChange={set("whoami")} error={errors.whoami} />
        <TextAreaField label="Config" mono rows={5} value={values.config} onChange={set("config")} error={errors.config} hint="JSON object of tier 4 settings." />
        <TextAreaField label="Plugin settings" mono rows={4} value={values.plugin_settings} onChange={set("plugin_settings")} error={errors.plugin_settings} hint="JSON object: settings per plugin id." />
        <FormAlert message={errors.form} />
        <p role="status" className="min-h-5 text-sm font-medium text-emerald-700 dark:text-emerald-300">
          {saved}
        </p>
        <div className="flex justify-end gap-3">
          <button type="button" onClick={onClose} className={secondaryButton}>
            Close
          </button>
          <button type="submit" disabled={update.isPending} className={primaryButton}>
            {update.isPending ? "Saving…" : "Save changes"}
          </button>
        </div>
      </form>

      <section aria-labelledby="effective-config-heading" className="border-t border-slate-200 pt-6 dark:border-slate-800">
        <h3 id="effective-config-heading" className="text-base font-semibold">
          Effective config
        </h3>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">Every key that applies to this instance, and the tier it comes from.</p>
        {effective.isPending ? (
          <LoadingState label="Loading the effective config…" />
        ) : effective.isError ? (
          <ErrorState title="The effective config could not be loaded." error={effective.error} onRetry={() => effective.refetch()} />
        ) : (
          <div className="mt-3 space-y-3">
            <p className="text-sm">
              Config hash: <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs dark:bg-slate-800">{effective.data.config_hash ?? "none"}</code>
            </p>
            {effective.data.data.length === 0 ? (
              <EmptyState title="No settings in effect" body="No tier sets any key for this instance." />
            ) : (
              <EffectiveTable caption={`Effective config of ${instance.name}`} settings={effective.data.data} overridableLabel="Overridable" />
            )}
          </div>
        )}
      </section>
    </div>
  );
}
