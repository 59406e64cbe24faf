"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Plugin } from "@/lib/schemas/plugins";
import { formatTimestamp } from "@/components/api-keys/format";
import { Dialog, useOpenedOnce } from "@/components/ui/dialog";
import { primaryButton, secondaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { PluginLogo } from "./logo";
import { registeredNotice, usePluginToggle, VersionCells } from "./parts";
import { versionsOptions } from "./queries";
import { SettingsPreview } from "./settings-preview";
import { ListView, useNotice } from "@/components/ui/resource-section";
import { BackLink, Notice } from "@/components/ui/states";
import { Badge } from "@/components/ui/badge";
import { RowActions, td } from "@/components/ui/table";
import { onDemand } from "@/components/ui/form-loading";

// Every version of one system plugin, newest registration first, the latest marked; each with its
// switch and the settings form its schema makes. "Register version" starts from the latest; its
// form (with its validation) loads when first opened, not with the page.

const RegisterPluginDialog = onDemand(() => import("./register-plugin-dialog").then((m) => m.RegisterPluginDialog), {
  loading: () => null,
});

function SettingsDialog({ plugin, onClose }: { plugin: Plugin | null; onClose: () => void }) {
  return (
    <Dialog
      open={plugin !== null}
      onClose={onClose}
      title={plugin ? `Settings form of ${plugin.name} ${plugin.version}` : "Settings form"}
      description="The form this version's settings schema makes, filled with its default settings. Try values here; they are not saved."
    >
      {plugin && (
        <div className="space-y-4">
          <SettingsPreview schema={plugin.settings_schema} defaults={plugin.default_settings} />
          <details className="text-sm">
            <summary className="cursor-pointer font-medium">Settings schema (JSON)</summary>
            <pre className="mt-2 max-h-64 overflow-auto rounded-md bg-slate-100 p-3 font-mono text-xs dark:bg-slate-800">
              {JSON.stringify(plugin.settings_schema, null, 2)}
            </pre>
          </details>
          <div className="flex justify-end">
            <button type="button" onClick={onClose} className={secondaryButton}>
              Close
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

export function PluginVersionsScreen({ pid }: { pid: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [registering, setRegistering] = useState(false);
  const registerOpened = useOpenedOnce(registering);
  const [previewing, setPreviewing] = useState<Plugin | null>(null);
  const notice = useNotice();
  const query = useInfiniteQuery(versionsOptions(trpc, pid));
  const versions = query.data?.pages.flatMap((page) => page.data) ?? [];
  const latest = versions.find((v) => v.is_latest) ?? versions[0] ?? null;
  const { toggle } = usePluginToggle(notice);

  return (
    <section aria-labelledby="versions-heading">
      <BackLink href="/console/plugins">All plugins</BackLink>
      <div className="mt-3 flex flex-wrap items-start justify-between gap-4">
        <div className="flex max-w-2xl items-start gap-3">
          {latest && <PluginLogo src={latest.logo_image} size={40} />}
          <div>
            <h1 id="versions-heading" className="text-2xl font-bold tracking-tight">
              {latest ? `${latest.name} versions` : "Plugin versions"}
            </h1>
            <p className="mt-1 font-mono text-sm text-slate-600 dark:text-slate-300">{pid}</p>
            {latest?.description && (
              <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{latest.description}</p>
            )}
          </div>
        </div>
        {latest && (
          <button type="button" onClick={() => setRegistering(true)} className={primaryButton}>
            Register version
          </button>
        )}
      </div>

      <div className="mt-4">
        <Notice text={notice.text} error={notice.error} />
      </div>

      <div className="mt-2">
        <ListView
          query={query}
          noun="versions"
          caption={`Versions of ${pid}`}
          columns={[
            "Version",
            "Name",
            "Tag",
            "Capabilities",
            "Behaviour",
            "Registered",
            "Enabled",
            { label: "Actions", hidden: true },
          ]}
          row={(version) => (
            <>
              <th scope="row" className={`${td} text-left whitespace-nowrap`}>
                <span className="font-mono font-medium">{version.version}</span>
                {version.is_latest && (
                  <Badge tone="good" className="ml-2">
                    Latest
                  </Badge>
                )}
              </th>
              <td className={td}>{version.name}</td>
              <VersionCells plugin={version} />
              <td className={`${td} whitespace-nowrap`}>
                <time dateTime={version.created_at}>{formatTimestamp(version.created_at)}</time>
              </td>
              <td className={`${td} whitespace-nowrap`}>{toggle(version)}</td>
              <RowActions
                actions={[
                  {
                    label: "Settings form",
                    ariaLabel: `Settings form of ${version.version}`,
                    onClick: () => setPreviewing(version),
                  },
                ]}
              />
            </>
          )}
          empty={{ title: "No such system plugin", body: `No version of ${pid} is registered.` }}
        />
      </div>

      {registerOpened && (
        <RegisterPluginDialog
          open={registering}
          template={latest}
          onClose={() => setRegistering(false)}
          onRegistered={(plugin) => {
            setRegistering(false);
            notice.say(registeredNotice(plugin));
            void queryClient.invalidateQueries(trpc.plugins.list.pathFilter());
          }}
        />
      )}
      <SettingsDialog plugin={previewing} onClose={() => setPreviewing(null)} />
    </section>
  );
}
