"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PlatformSettingView } from "@/lib/schemas/settings";
import { PLATFORM_ONLY_CATEGORIES } from "@/lib/settings";
import { useTRPC } from "@/trpc/react";
import { Badge } from "@/components/ui/badge";
import { ResourceSection } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { KeyValueCells } from "./settings-section";
import { KeyPoliciesPanel } from "./key-policies-panel";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// Platform settings (tier 2): every key with its value_type, category and whether organizations
// may override it, including the tier quotas (`tier.<name>`). The form (with its validation) loads
// when first opened, not with the page.

const PlatformSettingForm = onDemand(() => import("./platform-setting-form").then((m) => m.PlatformSettingForm), {
  loading: () => <FormLoading />,
});

const platformOnly = (category: string | null) =>
  (PLATFORM_ONLY_CATEGORIES as readonly (string | null)[]).includes(category);

export function PlatformSettingsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.platformSettings.list.queryOptions({ limit: 100 }));
  const remove = useMutation(trpc.platformSettings.delete.mutationOptions());
  return (
    <ResourceSection<PlatformSettingView>
      level={1}
      title="Platform settings"
      description={
        <>
          Tier 2: the platform’s defaults, which organizations and their orchestrators inherit and may override where a
          setting allows it. Categories <code className="font-mono">tier</code> (the quotas of each subscription tier)
          and <code className="font-mono">policy</code> govern the platform itself and are not inherited.
        </>
      }
      query={list}
      before={<KeyPoliciesPanel platform={Object.fromEntries((list.data?.data ?? []).map((s) => [s.key, s.value]))} />}
      columns={["Key", "Value", "Type", "Category", "Organizations may override", "Updated"]}
      rowKey={(s) => s.key}
      itemName={(s) => `platform setting ${s.key}`}
      cells={(s) => (
        <>
          <KeyValueCells setting={s}>
            {s.description && (
              <span className={`mt-1 block max-w-xs min-w-48 font-sans font-normal ${mutedText}`}>{s.description}</span>
            )}
          </KeyValueCells>
          <td className={td}>{s.value_type}</td>
          <td className={td}>
            {s.category ? (
              <span className="flex flex-col items-start gap-1">
                {s.category}
                {platformOnly(s.category) && <Badge tone="warn">platform only</Badge>}
              </span>
            ) : (
              <span className={mutedText}>None</span>
            )}
          </td>
          <td className={td}>{platformOnly(s.category) ? "Not inherited" : s.overridable ? "Yes" : "No"}</td>
          <WhenCell iso={s.updated_at} />
        </>
      )}
      empty={{ title: "No platform settings", body: "Add the platform’s defaults; organizations inherit them." }}
      create={{ label: "Add platform setting" }}
      editor={{
        title: (s) => (s ? `Edit platform setting ${s.key}` : "Add platform setting"),
        description: () => "The value must have the value type. Every orchestrator’s config hash follows the change.",
        form: (s, controls) => (
          <PlatformSettingForm
            setting={s}
            onCancel={controls.cancel}
            onSaved={(saved) => controls.done(`Platform setting ${saved.key} saved.`)}
          />
        ),
      }}
      remove={{
        title: (s) => `Delete platform setting ${s.key}?`,
        body: (s) => (
          <>
            Organizations that do not set <code className="font-mono">{s.key}</code> themselves lose it.
            {s.category === "tier" && " Without it, this subscription tier has no quotas."}
          </>
        ),
        confirmLabel: "Delete platform setting",
        run: (s) => remove.mutateAsync({ key: s.key }),
        notice: (s) => `Platform setting ${s.key} deleted.`,
      }}
      // Effective settings and config hashes of every organization follow the platform tier.
      refresh={() =>
        Promise.all([
          queryClient.invalidateQueries(trpc.platformSettings.pathFilter()),
          queryClient.invalidateQueries(trpc.orgSettings.pathFilter()),
          queryClient.invalidateQueries(trpc.orchestrators.pathFilter()),
        ])
      }
    />
  );
}
