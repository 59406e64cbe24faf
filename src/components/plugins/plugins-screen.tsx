"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { linkButton, primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { PluginLogo } from "./logo";
import { Capabilities, Flags, usePluginToggle } from "./parts";
import { catalogOptions, versionsHref } from "./queries";
import { RegisterPluginDialog } from "./register-plugin-dialog";
import { EmptyState, ErrorState, LoadingState, Notice, type ScreenNotice } from "@/components/ui/states";
import { DataTable, td } from "@/components/ui/table";
import { PageHeader } from "@/components/ui/page-header";

// The system plugin catalog: the latest version of each plugin, with its switch, a way to every
// version of it, and "Register version".

export function PluginsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [registering, setRegistering] = useState(false);
  const [notice, setNotice] = useState<ScreenNotice | null>(null);
  const list = useInfiniteQuery(catalogOptions(trpc));
  const plugins = list.data?.pages.flatMap((page) => page.data) ?? [];
  const { toggle } = usePluginToggle(setNotice);

  const registerButton = (
    <button type="button" onClick={() => setRegistering(true)} className={primaryButton}>
      Register version
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading plugins…" />;
    if (list.isError && plugins.length === 0) {
      return <ErrorState title="The plugins could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    }
    if (plugins.length === 0) {
      return <EmptyState title="No system plugins yet" body="Register a plugin version to offer it to every organization." action={registerButton} />;
    }
    return (
      <DataTable caption="System plugins, latest versions" columns={["Plugin", "Plugin ID", "Latest version", "Tag", "Capabilities", "Behaviour", "Enabled"]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more plugins" }}>
        {plugins.map((plugin) => (
          <tr key={plugin.id}>
            <th scope="row" className={`${td} min-w-48 text-left font-medium`}>
              <div className="flex items-start gap-3">
                <PluginLogo src={plugin.logo_image} />
                <div className="min-w-0">
                  <span className="break-words">{plugin.name}</span>
                  {plugin.description && (
                    <p className="mt-0.5 line-clamp-2 text-xs font-normal text-slate-500 dark:text-slate-400">{plugin.description}</p>
                  )}
                </div>
              </div>
            </th>
            <td className={`${td} font-mono text-xs break-all`}>{plugin.pid}</td>
            <td className={`${td} whitespace-nowrap`}>
              <span className="font-mono">{plugin.version}</span>
              <Link href={versionsHref(plugin.pid)} className={`${linkButton} block text-xs`} aria-label={`All versions of ${plugin.pid}`}>
                All versions
              </Link>
            </td>
            <td className={td}>{plugin.tag ?? <span className="text-slate-500 dark:text-slate-400">—</span>}</td>
            <td className={td}>
              <Capabilities capabilities={plugin.capabilities} />
            </td>
            <td className={td}>
              <Flags plugin={plugin} />
            </td>
            <td className={`${td} whitespace-nowrap`}>{toggle(plugin)}</td>
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="plugins-heading">
      <PageHeader id="plugins-heading" title="Plugins" actions={registerButton}>
        System plugins every organization’s orchestrators may use. Orchestrators use a plugin’s latest version, and only while
        that version is enabled; their settings for it must satisfy its settings schema.
      </PageHeader>

      <div className="mt-4">
        <Notice text={notice?.text ?? ""} error={notice?.error} />
      </div>

      <div className="mt-2">{content()}</div>

      <RegisterPluginDialog
        open={registering}
        onClose={() => setRegistering(false)}
        onRegistered={(plugin) => {
          setRegistering(false);
          setNotice({ text: `${plugin.name} ${plugin.version} registered${plugin.is_latest ? " as the latest version" : ""}.`, error: false });
          void queryClient.invalidateQueries(trpc.plugins.list.pathFilter());
        }}
      />
    </section>
  );
}
