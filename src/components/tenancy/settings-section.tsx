"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import type { EffectiveSetting, OrgSettingView } from "@/lib/schemas/settings";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { kindOf, parseSettingKey, parseValue, VALUE_KINDS, ValueInput, type ValueKind, valueText } from "@/components/tenancy/values";
import { Badge, type Tone } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CheckboxField, DialogButtons, optionsOf, SelectField, TextField, useFormErrors } from "@/components/ui/form";
import { EmptyState, ErrorState, FormAlert, LoadingState, Notice } from "@/components/ui/states";
import { DataTable, RowActions, td } from "@/components/ui/table";
import { JsonValue, When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// An organization's settings (tier 3) with add, edit and remove, and its effective settings: every
// key's value and the tier it came from.

const SOURCE: Record<EffectiveSetting["source"], { label: string; tone: Tone }> = {
  platform: { label: "Platform", tone: "neutral" },
  organization: { label: "Organization", tone: "brand" },
  instance: { label: "Instance", tone: "accent" },
};

export const SourceBadge = ({ source }: { source: EffectiveSetting["source"] }) => <Badge tone={SOURCE[source].tone}>{SOURCE[source].label}</Badge>;

/** The effective settings table of an organization or an instance. */
export function EffectiveTable({ caption, settings, overridableLabel }: { caption: string; settings: EffectiveSetting[]; overridableLabel: string }) {
  return (
    <DataTable caption={`${caption}`} columns={["Key", "Value", "Source", overridableLabel]}>
      {settings.map((s) => (
        <tr key={s.key}>
          <th scope="row" className={`${td} text-left font-mono text-xs font-medium break-all`}>
            {s.key}
          </th>
          <td className={td}>
            <JsonValue value={s.value} />
          </td>
          <td className={td}>
            <SourceBadge source={s.source} />
          </td>
          <td className={td}>{s.overridable ? "Yes" : "No"}</td>
        </tr>
      ))}
    </DataTable>
  );
}

type Editing = { mode: "add" } | { mode: "edit"; setting: OrgSettingView };

export function SettingsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.orgSettings.list.queryOptions({ org_id: orgId }));
  const effective = useQuery(trpc.orgSettings.effective.queryOptions({ org_id: orgId }));
  const [editing, setEditing] = useState<Editing | null>(null);
  const [removing, setRemoving] = useState<OrgSettingView | null>(null);
  const [notice, setNotice] = useState("");
  const remove = useMutation(trpc.orgSettings.delete.mutationOptions());

  // A tier change moves effective values and instances' config hashes too.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.orgSettings.pathFilter()),
      queryClient.invalidateQueries(trpc.orchestrators.pathFilter()),
    ]);

  const addButton = (
    <button type="button" onClick={() => setEditing({ mode: "add" })} className={primaryButton}>
      Add setting
    </button>
  );

  function settingsTable() {
    if (settings.isPending) return <LoadingState label="Loading settings…" />;
    if (settings.isError) return <ErrorState title="The settings could not be loaded." error={settings.error} onRetry={() => settings.refetch()} />;
    if (settings.data.data.length === 0) {
      return <EmptyState title="No organization settings" body="This organization uses the platform’s values. Add a setting to override one, or to add its own key." />;
    }
    return (
      <DataTable caption="Organization settings" columns={["Key", "Value", "Instances may override", "Updated", { label: "Actions", hidden: true }]} busy={settings.isFetching}>
        {settings.data.data.map((s) => (
          <tr key={s.key}>
            <th scope="row" className={`${td} text-left font-mono text-xs font-medium break-all`}>
              {s.key}
            </th>
            <td className={td}>
              <JsonValue value={s.value} />
            </td>
            <td className={td}>{s.overridable ? "Yes" : "No"}</td>
            <td className={td}>
              <When iso={s.updated_at} />
            </td>
            <RowActions
              actions={[
                { label: "Edit", ariaLabel: `Edit setting ${s.key}`, onClick: () => setEditing({ mode: "edit", setting: s }) },
                { label: "Remove", ariaLabel: `Remove setting ${s.key}`, onClick: () => setRemoving(s), danger: true },
              ]}
            />
          </tr>
        ))}
      </DataTable>
    );
  }

  function effectiveTable() {
    if (effective.isPending) return <LoadingState label="Loading effective settings…" />;
    if (effective.isError) return <ErrorState title="The effective settings could not be loaded." error={effective.error} onRetry={() => effective.refetch()} />;
    if (effective.data.data.length === 0) return <EmptyState title="No settings in effect" body="Neither the platform nor this organization sets any inherited key." />;
    return <EffectiveTable caption="Effective settings" settings={effective.data.data} overridableLabel="Instances may override" />;
  }

  return (
    <div className="space-y-10">
      <section aria-labelledby="org-settings-heading">
        <PageHeader level={2} id="org-settings-heading" title="Organization settings" actions={addButton}>
          Tier 3: the organization’s values override the platform’s where the platform allows it, and apply to every orchestrator instance
          of the organization.
        </PageHeader>
        <div className="mt-2">
          <Notice text={notice} />
        </div>
        <div className="mt-2">{settingsTable()}</div>
      </section>

      <section aria-labelledby="effective-settings-heading">
        <PageHeader level={2} id="effective-settings-heading" title="Effective settings">
          What applies in this organization: every key’s value and the tier it comes from.
        </PageHeader>
        <div className="mt-4">{effectiveTable()}</div>
      </section>

      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === "edit" ? `Edit setting ${editing.setting.key}` : "Add setting"}
        description="Where the platform marks a key as not overridable, saving is refused."
      >
        {editing && (
          <OrgSettingForm
            orgId={orgId}
            editing={editing}
            effective={effective.data?.data ?? []}
            onCancel={() => setEditing(null)}
            onSaved={(saved) => {
              setEditing(null);
              setNotice(`Setting ${saved.key} saved.`);
              void refresh();
            }}
          />
        )}
      </Dialog>

      <ConfirmDialog
        subject={removing}
        title={(s) => `Remove setting ${s.key}?`}
        body={() => <>The organization falls back to the platform’s value for this key, if the platform has one.</>}
        confirmLabel="Remove setting"
        pendingLabel="Removing…"
        onClose={() => setRemoving(null)}
        run={(s) => remove.mutateAsync({ org_id: orgId, key: s.key })}
        onDone={(s) => {
          setRemoving(null);
          setNotice(`Setting ${s.key} removed.`);
          void refresh();
        }}
      />
    </div>
  );
}

const LABELS = { key: "Key", kind: "Value type", value: "Value", overridable: "Instances may override" } as const;

function OrgSettingForm({
  orgId,
  editing,
  effective,
  onCancel,
  onSaved,
}: {
  orgId: string;
  editing: Editing;
  effective: EffectiveSetting[];
  onCancel: () => void;
  onSaved: (saved: OrgSettingView) => void;
}) {
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(LABELS, formRef);
  const existing = editing.mode === "edit" ? editing.setting : null;
  const [key, setKey] = useState(existing?.key ?? "");
  const [kind, setKind] = useState<ValueKind>(existing ? kindOf(existing.value) : "string");
  const [text, setText] = useState(existing ? valueText(kindOf(existing.value), existing.value) : "");
  const [overridable, setOverridable] = useState(existing?.overridable ?? false);
  const save = useMutation(trpc.orgSettings.put.mutationOptions({ onSuccess: onSaved, onError: form.fromServer }));

  // What the platform says about this key, so the admin knows before saving.
  const above = effective.find((s) => s.key === key.trim() && s.source === "platform");

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: Partial<Record<keyof typeof LABELS | "form", string>> = {};
    const parsedKey = parseSettingKey(key);
    if (!parsedKey.ok) found.key = parsedKey.message;
    const value = parseValue(kind, text);
    if (!value.ok) found.value = value.message;
    form.set(found);
    if (parsedKey.ok && value.ok) save.mutate({ org_id: orgId, key: parsedKey.value, value: value.value, overridable });
  }

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField
        label="Key"
        value={key}
        onChange={(event) => setKey(event.target.value)}
        readOnly={existing !== null}
        autoFocus={existing === null}
        autoComplete="off"
        placeholder="chat.greeting"
        error={form.errors.key}
        hint={
          above
            ? `The platform sets this key to ${JSON.stringify(above.value)}${above.overridable ? "; organizations may override it." : " and does not let organizations override it."}`
            : "Dotted lower_snake_case, like telemetry.enabled."
        }
      />
      <SelectField
        label="Value type"
        value={kind}
        onChange={(event) => {
          setKind(event.target.value as ValueKind);
          if (event.target.value === "boolean") setText("true");
        }}
        options={optionsOf(VALUE_KINDS)}
        hint="How the value is entered. A platform setting of the same key decides the type it must have."
      />
      <ValueInput kind={kind} text={text} onText={setText} error={form.errors.value} />
      <CheckboxField
        label="Instances may override"
        checked={overridable}
        onChange={(event) => setOverridable(event.target.checked)}
        hint="Whether orchestrator instances may set their own value for this key."
      />
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={save.isPending} label="Save setting" />
    </form>
  );
}
