"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Plugin } from "@/lib/schemas/plugins";
import { messageOf, useTRPC } from "@/trpc/react";
import type { NoticeState } from "@/components/ui/resource-section";
import { badgeClass } from "@/components/ui/badge";
import { mutedText } from "@/components/ui/styles";
import { Switch } from "@/components/ui/switch";
import { td } from "@/components/ui/table";
import { CodeList } from "@/components/ui/values";

// Pieces both plugin screens show: a version's behaviour flags, its capabilities, the switch
// that enables or disables it, and what they say once a version is registered.

/** What a screen says once a version is registered. */
export const registeredNotice = (plugin: Plugin) =>
  `${plugin.name} ${plugin.version} registered${plugin.is_latest ? " as the latest version" : ""}.`;

function Flags({ plugin }: { plugin: Plugin }) {
  const flags = [
    plugin.is_specialized && "Specialized",
    plugin.is_scoped && "Scoped",
    plugin.stateless ? "Stateless" : "Stateful",
  ].filter((f): f is string => typeof f === "string");
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

/** The cells a version's row shows on both screens: its tag, capabilities and behaviour. */
export function VersionCells({ plugin }: { plugin: Plugin }) {
  return (
    <>
      <td className={td}>{plugin.tag ?? <span className={mutedText}>—</span>}</td>
      <td className={td}>
        <CodeList items={plugin.capabilities} inline />
      </td>
      <td className={td}>
        <Flags plugin={plugin} />
      </td>
    </>
  );
}

/** Enables and disables versions; says what happened (or went wrong) in `notice`. */
export function usePluginToggle(notice: NoticeState) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pendingId, setPendingId] = useState<string | null>(null);
  const mutation = useMutation(
    trpc.plugins.setEnabled.mutationOptions({
      onMutate: ({ plugin_id }) => setPendingId(plugin_id),
      onSuccess: (plugin) => notice.say(`${plugin.name} ${plugin.version} ${plugin.enabled ? "enabled" : "disabled"}.`),
      onError: (error) => notice.fail(`The change was not saved: ${messageOf(error)}`),
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
