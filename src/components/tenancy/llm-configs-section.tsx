"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { LlmConfig } from "@/lib/schemas/llm-configs";
import { useTRPC } from "@/trpc/react";
import { Badge } from "@/components/ui/badge";
import { ResourceSection } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's LLM configs (bring your own key). The provider key is write-only: the console
// sends it and only ever shows its last 4 characters. The provider is fixed after creation.
// The form (with its validation) loads when first opened, not with the page.

const LlmConfigForm = onDemand(() => import("./llm-config-form").then((m) => m.LlmConfigForm), {
  loading: () => <FormLoading />,
});

export function LlmConfigsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.llmConfigs.list.queryOptions({ org_id: orgId }));
  const remove = useMutation(trpc.llmConfigs.delete.mutationOptions());
  const queryClient = useQueryClient();
  return (
    <ResourceSection<LlmConfig>
      title="LLM configs"
      description="The organization’s own provider keys, stored encrypted and never shown again: only their last 4 characters. Disabled configs are not offered to new orchestrators."
      query={list}
      columns={["Name", "Provider", "API key", "Base URL", "Status", "Updated"]}
      itemName={(config) => config.name}
      cells={(config) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            {config.name}
          </th>
          <td className={td}>{config.provider}</td>
          <td className={`${td} font-mono whitespace-nowrap`}>
            <span aria-hidden="true">••••</span>
            <span className="sr-only">ends in </span>
            {config.api_key_readable ? config.api_key_last4 : "unreadable: set a new key"}
          </td>
          <td className={`${td} wrap-anywhere`}>
            {config.base_url ?? <span className={mutedText}>Provider default</span>}
          </td>
          <td className={td}>{config.is_enabled ? <Badge tone="good">enabled</Badge> : <Badge>disabled</Badge>}</td>
          <WhenCell iso={config.updated_at} />
        </>
      )}
      empty={{
        title: "No LLM configs",
        body: "Add the organization’s own provider key so its orchestrators can call that provider.",
      }}
      create={{ label: "Add LLM config" }}
      editor={{
        title: (config) => (config ? `Edit LLM config “${config.name}”` : "Add LLM config"),
        description: (config) =>
          config
            ? "The provider is fixed. Leave the API key empty to keep the current one."
            : "The API key is stored encrypted and never shown again.",
        form: (config, controls) => <LlmConfigForm orgId={orgId} config={config} controls={controls} />,
      }}
      remove={{
        title: (c) => `Delete LLM config “${c.name}”?`,
        body: (c) => (
          <>
            The {c.provider} key{" "}
            {c.api_key_readable ? (
              <>
                ending in <code className="font-mono">{c.api_key_last4}</code>
              </>
            ) : (
              "(unreadable)"
            )}{" "}
            stops being available to the organization’s orchestrators.
          </>
        ),
        confirmLabel: "Delete LLM config",
        run: (c) => remove.mutateAsync({ org_id: orgId, config_id: c.id }),
        notice: (c) => `LLM config “${c.name}” deleted.`,
      }}
      refresh={() => queryClient.invalidateQueries(trpc.llmConfigs.pathFilter())}
    />
  );
}
