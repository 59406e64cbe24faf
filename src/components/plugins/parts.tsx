"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Plugin } from "@/lib/schemas/plugins";
import { messageOf, useTRPC } from "@/trpc/react";
import type { ScreenNotice } from "@/components/ui/states";
import { badgeClass } from "@/components/ui/badge";
import { Switch } from "@/components/ui/switch";

// Pieces both plugin screens show: a version's behaviour flags, its capabilities, and the switch
// that enables or disables it.

export function Flags({ plugin }: { plugin: Plugin }) {
  const flags = [plugin.is_specialized && "Specialized", plugin.is_scoped && "Scoped", plugin.stateless ? "Stateless" : "Stateful"].filter(
    (f): f is string => typeof f === "string",
  );
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Behaviour">
      {flags.map((flag) => (
        <li key={flag} className={badgeClass()}>
          {flag}
        </li>
      ))}
    </ul>
  );
}

export function Capabilities({ capabilities }: { capabilities: string[] }) {
  if (capabilities.length === 0) return <span className="text-slate-500 dark:text-slate-400">None</span>;
  return (
    <ul className="flex flex-wrap gap-1">
      {capabilities.map((capability) => (
        <li key={capability}>
          <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs dark:bg-slate-800">{capability}</code>
        </li>
      ))}
    </ul>
  );
}

/** Enables and disables versions; says what happened (or went wrong) through `onNotice`. */
export function usePluginToggle(onNotice: (notice: ScreenNotice) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pendingId, setPendingId] = useState<string | null>(null);
  const mutation = useMutation(
    trpc.plugins.setEnabled.mutationOptions({
      onMutate: ({ plugin_id }) => setPendingId(plugin_id),
      onSuccess: (plugin) =>
        onNotice({ text: `${plugin.name} ${plugin.version} ${plugin.enabled ? "enabled" : "disabled"}.`, error: false }),
      onError: (error) => onNotice({ text: `The change was not saved: ${messageOf(error)}`, error: true }),
      onSettled: async () => {
        await queryClient.invalidateQueries(trpc.plugins.list.pathFilter());
        setPendingId(null);
      },
    }),
  );
  return {
    toggle: (plugin: Plugin) => (
      <Switch
        checked={plugin.enabled}
        label={`Enable ${plugin.name} ${plugin.version}`}
        disabled={pendingId === plugin.id}
        onChange={(enabled) => mutation.mutate({ plugin_id: plugin.id, enabled })}
      />
    ),
  };
}
