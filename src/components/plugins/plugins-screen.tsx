"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { Plugin } from "@/lib/schemas/plugins";
import { linkButton, mutedText } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { PluginLogo } from "./logo";
import { registeredNotice, usePluginToggle, VersionCells } from "./parts";
import { catalogOptions, versionsHref } from "./queries";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { td } from "@/components/ui/table";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// The system plugin catalog: the latest version of each plugin, with its switch, a way to every
// version of it, and "Register version", whose form (with its validation) loads when first opened.

const RegisterForm = onDemand(() => import("./register-plugin-dialog").then((m) => m.RegisterForm), {
  loading: () => <FormLoading />,
});

export function PluginsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const notice = useNotice();
  const list = useInfiniteQuery(catalogOptions(trpc));
  const { toggle } = usePluginToggle(notice);

  return (
    <ResourceSection<Plugin>
      level={1}
      title="Plugins"
      description="System plugins every organization’s orchestrators may use. Orchestrators use a plugin’s latest version, and only while that version is enabled; their settings for it must satisfy its settings schema."
      notice={notice}
      noun="plugins"
      query={list}
      caption="System plugins, latest versions"
      columns={["Plugin", "Plugin ID", "Latest version", "Tag", "Capabilities", "Behaviour", "Enabled"]}
      itemName={(plugin) => plugin.name}
      cells={(plugin) => (
        <>
          <th scope="row" className={`${td} min-w-48 text-left font-medium`}>
            <div className="flex items-start gap-3">
              <PluginLogo src={plugin.logo_image} />
              <div className="min-w-0">
                <span className="break-words">{plugin.name}</span>
                {plugin.description && (
                  <p className={`mt-0.5 line-clamp-2 text-xs font-normal ${mutedText}`}>{plugin.description}</p>
                )}
              </div>
            </div>
          </th>
          <td className={`${td} font-mono text-xs wrap-anywhere`}>{plugin.pid}</td>
          <td className={`${td} whitespace-nowrap`}>
            <span className="font-mono">{plugin.version}</span>
            <Link
              href={versionsHref(plugin.pid)}
              className={`${linkButton} block text-xs`}
              aria-label={`All versions of ${plugin.pid}`}
            >
              All versions
            </Link>
          </td>
          <VersionCells plugin={plugin} />
          <td className={`${td} whitespace-nowrap`}>{toggle(plugin)}</td>
        </>
      )}
      empty={{ title: "No system plugins yet", body: "Register a plugin version to offer it to every organization." }}
      create={{ label: "Register version" }}
      editor={{
        createOnly: true,
        title: () => "Register plugin version",
        description: () =>
          "A new plugin, or a new version of one. The highest semantic version of a plugin is its latest.",
        form: (_none, controls) => (
          <RegisterForm
            template={null}
            onCancel={controls.cancel}
            onRegistered={(plugin) => controls.done(registeredNotice(plugin))}
          />
        ),
      }}
      refresh={() => queryClient.invalidateQueries(trpc.plugins.list.pathFilter())}
    />
  );
}
