"use client";

import {
  CENTRAL_POINT_STATUSES,
  createCentralPointInput,
  updateCentralPointInput,
  VISIBILITIES,
  type CentralPoint,
  type CreateCentralPointInput,
  type UpdateCentralPointInput,
} from "@/lib/schemas/central-points";
import { useTRPCClient } from "@/trpc/react";
import { Choice, ChoiceGroup, optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, valuesFrom } from "@/components/ui/form-values";
import type { EditorControls } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";

// A central point's create/edit form (./central-points-section.tsx): which orchestrator instance it
// leads to, who reaches it, and its status.

type Instance = { id: string; name: string };

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

export function CentralPointForm({
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
