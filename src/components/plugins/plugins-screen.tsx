"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import {
  EmptyState,
  LoadError,
  LoadingState,
  Notice,
  ShowMore,
  tableClass,
  tableFrame,
  td,
  th,
  type ScreenNotice,
} from "@/components/catalogs/states";
import { linkButton, primaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { PluginLogo } from "./logo";
import { Capabilities, Flags, usePluginToggle } from "./parts";
import { catalogOptions, versionsHref } from "./queries";
import { RegisterPluginDialog } from "./register-plugin-dialog";

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
    if (list.isPending) return <LoadingState what="plugins" />;
    if (list.isError && plugins.length === 0) {
      return <LoadError title="The plugins could not be loaded." message={messageOf(list.error)} onRetry={() => list.refetch()} />;
    }
    if (plugins.length === 0) {
      return <EmptyState title="No system plugins yet" body="Register a plugin version to offer it to every organization." action={registerButton} />;
    }
    return (
      <>
        <div className={tableFrame}>
          <table className={tableClass} aria-busy={list.isFetching}>
            <caption className="sr-only">System plugins, latest versions</caption>
            <thead className="bg-slate-50 dark:bg-slate-950">
              <tr>
                <th scope="col" className={th}>Plugin</th>
                <th scope="col" className={th}>Plugin ID</th>
                <th scope="col" className={th}>Latest version</th>
                <th scope="col" className={th}>Tag</th>
                <th scope="col" className={th}>Capabilities</th>
                <th scope="col" className={th}>Behaviour</th>
                <th scope="col" className={th}>Enabled</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
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
            </tbody>
          </table>
        </div>
        <ShowMore hasMore={list.hasNextPage} loading={list.isFetchingNextPage} onMore={() => list.fetchNextPage()} label="Show more plugins" />
      </>
    );
  }

  return (
    <section aria-labelledby="plugins-heading">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="max-w-2xl">
          <h1 id="plugins-heading" className="text-2xl font-bold tracking-tight">
            Plugins
          </h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
            System plugins every organization’s orchestrators may use. Orchestrators use a plugin’s latest version, and only while
            that version is enabled; their settings for it must satisfy its settings schema.
          </p>
        </div>
        {registerButton}
      </div>

      <Notice notice={notice} />

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
