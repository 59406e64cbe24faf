"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRef, useState, type FormEvent } from "react";
import { CENTRAL_POINT_STATUSES, createCentralPointInput, updateCentralPointInput, VISIBILITIES, type CentralPoint } from "@/lib/schemas/central-points";
import { Dialog } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field-error";
import { labelClass, primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { useOrganization } from "./organization-frame";
import { centralPointListOptions, orchestratorChoicesOptions } from "./queries";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DialogButtons, optionsOf, SelectField, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import type { FormErrors } from "@/components/ui/form-errors";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { PageHeader } from "@/components/ui/page-header";

// An organization's central points: stable handles for its orchestrator instances, pro tier and
// up. Below pro the section says so up front; the server's own refusal (tier_required) is shown
// in the dialog should anyone try anyway.

const TIER_RANK: Record<string, number> = { free: 0, pro: 1, enterprise: 2 };

type Editing = { mode: "add" } | { mode: "edit"; point: CentralPoint };

export function CentralPointsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useOrganization(orgId);
  const list = useInfiniteQuery(centralPointListOptions(trpc, orgId));
  const choices = useQuery(orchestratorChoicesOptions(trpc, orgId));
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<CentralPoint | null>(null);
  const [notice, setNotice] = useState("");
  const remove = useMutation(trpc.centralPoints.delete.mutationOptions());
  const points = list.data?.pages.flatMap((page) => page.data) ?? [];
  const instances = choices.data?.data ?? [];
  const instanceName = (id: string) => instances.find((o) => o.id === id)?.name ?? id;
  const belowPro = org.data !== undefined && (TIER_RANK[org.data.tier] ?? 0) < TIER_RANK.pro!;
  const refresh = () => queryClient.invalidateQueries(trpc.centralPoints.pathFilter());

  const addButton = (
    <button type="button" onClick={() => setEditing({ mode: "add" })} className={primaryButton}>
      Create central point
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading central points…" />;
    if (list.isError && points.length === 0) return <ErrorState title="The central points could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (points.length === 0) {
      return <EmptyState title="No central points" body="A central point gives one of the organization’s orchestrators a stable, named entry point." />;
    }
    return (
      <DataTable caption="Central points" columns={["Name", "Orchestrator", "Visibility", "Status", "Description", { label: "Actions", hidden: true }]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more central points" }}>
        {points.map((p) => (
          <tr key={p.id}>
            <th scope="row" className={`${td} text-left font-medium`}>
              {p.name}
            </th>
            <td className={td}>{instanceName(p.orchestrator_id)}</td>
            <td className={td}>
              <Badge tone={p.visibility === "public" ? "brand" : "neutral"}>{p.visibility}</Badge>
            </td>
            <td className={td}>
              <StatusBadge status={p.status} />
            </td>
            <td className={`${td} max-w-xs`}>{p.description ?? <span className="text-slate-500 dark:text-slate-400">None</span>}</td>
            <RowActions
              actions={[
                { label: "Edit", ariaLabel: `Edit ${p.name}`, onClick: () => setEditing({ mode: "edit", point: p }) },
                { label: "Delete", ariaLabel: `Delete ${p.name}`, onClick: () => setDeleting(p), danger: true },
              ]}
            />
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="central-points-heading">
      <PageHeader level={2} id="central-points-heading" title="Central points" actions={addButton}>
        Named, stable entry points to the organization’s orchestrators: private to the organization or public. Names are unique in the
        organization.
      </PageHeader>
      {belowPro && org.data && (
        <div role="note" aria-label="Tier required" className="mt-4 rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm dark:border-amber-900 dark:bg-amber-950">
          <p className="font-medium text-amber-900 dark:text-amber-100">Central points need the pro tier or higher.</p>
          <p className="mt-1 text-amber-800 dark:text-amber-200">
            This organization is on the {org.data.tier} tier, so creating one is refused. A sys_admin can change its tier under{" "}
            <Link href={`/console/organizations/${orgId}`} className="font-medium underline">
              Profile → Subscription
            </Link>
            .
          </p>
        </div>
      )}
      <div className="mt-2">
        <Notice text={notice} />
      </div>
      <div className="mt-2">{content()}</div>

      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === "edit" ? `Edit central point “${editing.point.name}”` : "Create central point"}
      >
        {editing && (
          <CentralPointForm
            orgId={orgId}
            point={editing.mode === "edit" ? editing.point : null}
            instances={instances}
            instancesLoading={choices.isPending}
            onCancel={() => setEditing(null)}
            onSaved={(saved, created) => {
              setEditing(null);
              setNotice(`Central point “${saved.name}” ${created ? "created" : "saved"}.`);
              void refresh();
            }}
          />
        )}
      </Dialog>

      <ConfirmDialog
        subject={deleting}
        title={(p) => `Delete central point “${p.name}”?`}
        body={() => <>Whatever calls this entry point stops reaching its orchestrator. The orchestrator itself stays.</>}
        confirmLabel="Delete central point"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(p) => remove.mutateAsync({ org_id: orgId, central_point_id: p.id })}
        onDone={(p) => {
          setDeleting(null);
          setNotice(`Central point “${p.name}” deleted.`);
          void refresh();
        }}
      />
    </section>
  );
}

const LABELS = { name: "Name", orchestrator_id: "Orchestrator", visibility: "Visibility", status: "Status", description: "Description" } as const;

const VISIBILITY_TEXT: Record<(typeof VISIBILITIES)[number], string> = {
  private: "Only the organization’s own members and integrations reach it.",
  public: "Anyone with its address reaches it.",
};

function CentralPointForm({
  orgId,
  point,
  instances,
  instancesLoading,
  onCancel,
  onSaved,
}: {
  orgId: string;
  point: CentralPoint | null;
  instances: { id: string; name: string }[];
  instancesLoading: boolean;
  onCancel: () => void;
  onSaved: (saved: CentralPoint, created: boolean) => void;
}) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const [name, setName] = useState(point?.name ?? "");
  const [orchestratorId, setOrchestratorId] = useState(point?.orchestrator_id ?? "");
  const [visibility, setVisibility] = useState(point?.visibility ?? "private");
  const [status, setStatus] = useState(point?.status ?? "active");
  const [description, setDescription] = useState(point?.description ?? "");
  const create = useMutation(trpc.centralPoints.create.mutationOptions({ onSuccess: (saved) => onSaved(saved, true), onError: form.fromServer }));
  const update = useMutation(trpc.centralPoints.update.mutationOptions({ onSuccess: (saved) => onSaved(saved, false), onError: form.fromServer }));
  const pending = create.isPending || update.isPending;

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: FormErrors<keyof typeof LABELS> = {};
    if (!orchestratorId) found.orchestrator_id = "Pick the orchestrator it points to.";
    const fields = { name, orchestrator_id: orchestratorId, visibility, status, description: description.trim() === "" ? null : description };
    if (point === null) {
      const input = form.check(createCentralPointInput, fields, found);
      if (input) create.mutate({ org_id: orgId, ...input });
    } else {
      const input = form.check(updateCentralPointInput, fields, found);
      if (input) update.mutate({ org_id: orgId, central_point_id: point.id, ...input });
    }
  }

  const { errors } = form;
  const orchestratorOptions = [
    { value: "", label: instancesLoading ? "Loading orchestrators…" : instances.length === 0 ? "No orchestrators yet" : "Pick an orchestrator" },
    ...instances.map((o) => ({ value: o.id, label: o.name })),
  ];
  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} error={errors.name} autoFocus autoComplete="off" hint="Unique in the organization." />
      <SelectField
        label="Orchestrator"
        value={orchestratorId}
        onChange={(event) => setOrchestratorId(event.target.value)}
        options={orchestratorOptions}
        error={errors.orchestrator_id}
        hint="The instance this central point leads to. While it does, that instance cannot be deleted."
      />
      <fieldset aria-invalid={errors.visibility ? true : undefined}>
        <legend className={labelClass}>Visibility</legend>
        <div className="mt-2 space-y-2">
          {VISIBILITIES.map((v) => (
            <div key={v} className="flex items-start gap-2 text-sm">
              <input
                id={`visibility-${v}`}
                type="radio"
                name="visibility"
                value={v}
                checked={visibility === v}
                onChange={() => setVisibility(v)}
                aria-describedby={`visibility-${v}-about`}
                className="mt-0.5 size-4 accent-brand-600"
              />
              <div>
                <label htmlFor={`visibility-${v}`} className="font-medium capitalize">
                  {v}
                </label>
                <p id={`visibility-${v}-about`} className="text-slate-500 dark:text-slate-400">
                  {VISIBILITY_TEXT[v]}
                </p>
              </div>
            </div>
          ))}
        </div>
        <FieldError id="visibility-error" message={errors.visibility} />
      </fieldset>
      <SelectField label="Status" value={status} onChange={(event) => setStatus(event.target.value)} options={optionsOf(CENTRAL_POINT_STATUSES)} error={errors.status} />
      <TextAreaField label="Description" value={description} onChange={(event) => setDescription(event.target.value)} error={errors.description} />
      <FormAlert message={errors.form} />
      <DialogButtons onCancel={onCancel} pending={pending} label={point === null ? "Create central point" : "Save central point"} />
    </form>
  );
}
