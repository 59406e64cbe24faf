"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import {
  CENTRAL_POINT_STATUSES,
  createCentralPointInput,
  updateCentralPointInput,
  VISIBILITIES,
  type CentralPoint,
  type CreateCentralPointInput,
  type UpdateCentralPointInput,
} from "@/lib/schemas/central-points";
import { SUBSCRIPTION_TIERS } from "@/lib/schemas/organizations";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { useOrganization } from "./organization-frame";
import { centralPointListOptions, orchestratorChoicesOptions } from "./queries";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { Choice, ChoiceGroup, optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, valuesFrom } from "@/components/ui/form-values";
import { ResourceSection, type EditorControls } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";

// An organization's central points: stable handles for its orchestrator instances, pro tier and
// up. Below pro the section says so up front; the server's own refusal (tier_required) is shown
// in the dialog should anyone try anyway.

const belowPro = (tier: (typeof SUBSCRIPTION_TIERS)[number]) =>
  SUBSCRIPTION_TIERS.indexOf(tier) < SUBSCRIPTION_TIERS.indexOf("pro");

type Instance = { id: string; name: string };

export function CentralPointsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useOrganization(orgId);
  const list = useInfiniteQuery(centralPointListOptions(trpc, orgId));
  const choices = useQuery(orchestratorChoicesOptions(trpc, orgId));
  const remove = useMutation(trpc.centralPoints.delete.mutationOptions());
  const instances = choices.data?.data ?? [];
  const instanceName = (id: string) => instances.find((o) => o.id === id)?.name ?? id;

  return (
    <ResourceSection<CentralPoint>
      title="Central points"
      description="Named, stable entry points to the organization’s orchestrators: private to the organization or public. Names are unique in the organization."
      before={
        org.data &&
        belowPro(org.data.tier) && (
          <div
            role="note"
            aria-label="Tier required"
            className="mt-4 rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm dark:border-amber-900 dark:bg-amber-950"
          >
            <p className="font-medium text-amber-900 dark:text-amber-100">
              Central points need the pro tier or higher.
            </p>
            <p className="mt-1 text-amber-800 dark:text-amber-200">
              This organization is on the {org.data.tier} tier, so creating one is refused. A sys_admin can change its
              tier under{" "}
              <Link href={`/console/organizations/${orgId}`} className="font-medium underline">
                Profile → Subscription
              </Link>
              .
            </p>
          </div>
        )
      }
      query={list}
      columns={["Name", "Orchestrator", "Visibility", "Status", "Description"]}
      itemName={(p) => p.name}
      cells={(p) => (
        <>
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
          <td className={`${td} max-w-xs`}>{p.description ?? <span className={mutedText}>None</span>}</td>
        </>
      )}
      empty={{
        title: "No central points",
        body: "A central point gives one of the organization’s orchestrators a stable, named entry point.",
      }}
      create={{ label: "Create central point" }}
      editor={{
        title: (p) => (p ? `Edit central point “${p.name}”` : "Create central point"),
        form: (p, controls) => (
          <CentralPointForm
            orgId={orgId}
            point={p}
            instances={instances}
            instancesLoading={choices.isPending}
            controls={controls}
          />
        ),
      }}
      remove={{
        title: (p) => `Delete central point “${p.name}”?`,
        body: () => (
          <>Whatever calls this entry point stops reaching its orchestrator. The orchestrator itself stays.</>
        ),
        confirmLabel: "Delete central point",
        run: (p) => remove.mutateAsync({ org_id: orgId, central_point_id: p.id }),
        notice: (p) => `Central point “${p.name}” deleted.`,
      }}
      refresh={() => queryClient.invalidateQueries(trpc.centralPoints.pathFilter())}
    />
  );
}

const VISIBILITY_TEXT: Record<(typeof VISIBILITIES)[number], string> = {
  private: "Only the organization’s own members and integrations reach it.",
  public: "Anyone with its address reaches it.",
};

interface CentralPointValues {
  name: string;
  orchestrator_id: string;
  visibility: string;
  status: string;
  description: string;
}

function CentralPointForm({
  orgId,
  point,
  instances,
  instancesLoading,
  controls,
}: {
  orgId: string;
  point: CentralPoint | null;
  instances: Instance[];
  instancesLoading: boolean;
  controls: EditorControls;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<CentralPointValues, CreateCentralPointInput | UpdateCentralPointInput>({
    schema: point === null ? createCentralPointInput : updateCentralPointInput,
    defaultValues: valuesFrom(point, {
      name: "",
      orchestrator_id: "",
      visibility: "private",
      status: "active",
      description: "",
    }),
    toInput: ({ description, ...values }, problem) => {
      if (!values.orchestrator_id) problem("orchestrator_id", "Pick the orchestrator it points to.");
      return { ...values, description: blankAsNull(description) };
    },
    submit: async (input) => {
      const saved =
        point === null
          ? await client.centralPoints.create.mutate({ org_id: orgId, ...(input as CreateCentralPointInput) })
          : await client.centralPoints.update.mutate({ org_id: orgId, central_point_id: point.id, ...input });
      controls.done(`Central point “${saved.name}” ${point === null ? "created" : "saved"}.`);
    },
  });

  return (
    <Form form={form} className="space-y-5">
      <TextField name="name" label="Name" autoFocus autoComplete="off" hint="Unique in the organization." />
      <SelectField
        name="orchestrator_id"
        label="Orchestrator"
        options={[
          {
            value: "",
            label: instancesLoading
              ? "Loading orchestrators…"
              : instances.length === 0
                ? "No orchestrators yet"
                : "Pick an orchestrator",
          },
          ...instances.map((o) => ({ value: o.id, label: o.name })),
        ]}
        hint="The instance this central point leads to. While it does, that instance cannot be deleted."
      />
      <ChoiceGroup name="visibility" legend="Visibility" className="mt-2 space-y-2">
        {VISIBILITIES.map((v) => (
          <div key={v}>
            <Choice
              type="radio"
              name="visibility"
              value={v}
              aria-describedby={`visibility-${v}-about`}
              label={<span className="font-medium capitalize">{v}</span>}
            />
            <p id={`visibility-${v}-about`} className={`ml-6 text-sm ${mutedText}`}>
              {VISIBILITY_TEXT[v]}
            </p>
          </div>
        ))}
      </ChoiceGroup>
      <SelectField name="status" label="Status" options={optionsOf(CENTRAL_POINT_STATUSES)} />
      <TextAreaField name="description" label="Description" />
      <DialogButtons
        onCancel={controls.cancel}
        label={point === null ? "Create central point" : "Save central point"}
      />
    </Form>
  );
}
