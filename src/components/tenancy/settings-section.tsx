"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { EffectiveSetting, OrgSettingView } from "@/lib/schemas/settings";
import { useTRPC } from "@/trpc/react";
import { Badge, type Tone } from "@/components/ui/badge";
import { ListView, ResourceSection } from "@/components/ui/resource-section";
import { HeadedSection } from "@/components/ui/page-header";
import { DataTable, td } from "@/components/ui/table";
import { JsonValue, WhenCell } from "@/components/ui/values";
import { KeyPoliciesPanel } from "./key-policies-panel";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's settings (tier 3) with add, edit and remove, and its effective settings: every
// key's value and the tier it came from. The form (with its validation) loads when first opened.

const OrgSettingForm = onDemand(() => import("./org-setting-form").then((m) => m.OrgSettingForm), {
  loading: () => <FormLoading />,
});

const SOURCE: Record<EffectiveSetting["source"], { label: string; tone: Tone }> = {
  platform: { label: "Platform", tone: "neutral" },
  organization: { label: "Organization", tone: "brand" },
  instance: { label: "Instance", tone: "accent" },
};

/** A setting's key and value, the first cells of its row. */
export function KeyValueCells({
  setting,
  children,
}: {
  setting: { key: string; value: unknown };
  children?: ReactNode;
}) {
  return (
    <>
      <th scope="row" className={`${td} text-left font-mono text-xs font-medium`}>
        <span className="wrap-anywhere">{setting.key}</span>
        {children}
      </th>
      <td className={td}>
        <JsonValue value={setting.value} />
      </td>
    </>
  );
}

function EffectiveCells({ setting }: { setting: EffectiveSetting }) {
  return (
    <>
      <KeyValueCells setting={setting} />
      <td className={td}>
        <Badge tone={SOURCE[setting.source].tone}>{SOURCE[setting.source].label}</Badge>
      </td>
      <td className={td}>{setting.overridable ? "Yes" : "No"}</td>
    </>
  );
}

/** The effective settings table of an instance. */
export function EffectiveTable({
  caption,
  settings,
  overridableLabel,
}: {
  caption: string;
  settings: EffectiveSetting[];
  overridableLabel: string;
}) {
  return (
    <DataTable caption={caption} columns={["Key", "Value", "Source", overridableLabel]}>
      {settings.map((s) => (
        <tr key={s.key}>
          <EffectiveCells setting={s} />
        </tr>
      ))}
    </DataTable>
  );
}

export function SettingsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.orgSettings.list.queryOptions({ org_id: orgId }));
  const effective = useQuery(trpc.orgSettings.effective.queryOptions({ org_id: orgId }));
  const remove = useMutation(trpc.orgSettings.delete.mutationOptions());
  const platform = useQuery(trpc.platformSettings.list.queryOptions({ limit: 100 }));

  return (
    <div className="space-y-10">
      <ResourceSection<OrgSettingView>
        title="Organization settings"
        description="Tier 3: the organization’s values override the platform’s where the platform allows it, and apply to every orchestrator instance of the organization."
        query={settings}
        before={
          <KeyPoliciesPanel
            platform={Object.fromEntries((platform.data?.data ?? []).map((s) => [s.key, s.value]))}
            organization={Object.fromEntries((settings.data?.data ?? []).map((s) => [s.key, s.value]))}
          />
        }
        columns={["Key", "Value", "Instances may override", "Updated"]}
        rowKey={(s) => s.key}
        itemName={(s) => `setting ${s.key}`}
        removeLabel="Remove"
        cells={(s) => (
          <>
            <KeyValueCells setting={s} />
            <td className={td}>{s.overridable ? "Yes" : "No"}</td>
            <WhenCell iso={s.updated_at} />
          </>
        )}
        empty={{
          title: "No organization settings",
          body: "This organization uses the platform’s values. Add a setting to override one, or to add its own key.",
        }}
        create={{ label: "Add setting" }}
        editor={{
          title: (s) => (s ? `Edit setting ${s.key}` : "Add setting"),
          description: () => "Where the platform marks a key as not overridable, saving is refused.",
          form: (s, controls) => (
            <OrgSettingForm
              orgId={orgId}
              setting={s}
              effective={effective.data?.data ?? []}
              onCancel={controls.cancel}
              onSaved={(saved) => controls.done(`Setting ${saved.key} saved.`)}
            />
          ),
        }}
        remove={{
          title: (s) => `Remove setting ${s.key}?`,
          body: () => <>The organization falls back to the platform’s value for this key, if the platform has one.</>,
          confirmLabel: "Remove setting",
          pendingLabel: "Removing…",
          run: (s) => remove.mutateAsync({ org_id: orgId, key: s.key }),
          notice: (s) => `Setting ${s.key} removed.`,
        }}
        // A tier change moves effective values and instances' config hashes too.
        refresh={() =>
          Promise.all([
            queryClient.invalidateQueries(trpc.orgSettings.pathFilter()),
            queryClient.invalidateQueries(trpc.orchestrators.pathFilter()),
          ])
        }
      />

      <HeadedSection
        title="Effective settings"
        level={2}
        description="What applies in this organization: every key’s value and the tier it comes from."
      >
        <div className="mt-4">
          <ListView
            query={effective}
            caption="Effective settings"
            columns={["Key", "Value", "Source", "Instances may override"]}
            rowKey={(s) => s.key}
            row={(s) => <EffectiveCells setting={s} />}
            empty={{
              title: "No settings in effect",
              body: "Neither the platform nor this organization sets any inherited key.",
            }}
          />
        </div>
      </HeadedSection>
    </div>
  );
}
