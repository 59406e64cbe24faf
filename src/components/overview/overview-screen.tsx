"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { Overview } from "@/lib/schemas/overview";
import { useTRPC } from "@/trpc/react";
import { EventTable } from "@/components/audit/event-table";
import { UsageChart } from "@/components/usage/usage-chart";
import { HeadedSection } from "@/components/ui/page-header";
import { Loaded } from "@/components/ui/states";
import { mutedText, textLink } from "@/components/ui/styles";
import { Cell, DataTable, td } from "@/components/ui/table";

// The console's landing page: how many organizations (by tier), users and usable keys there are,
// which keys expire this week, the platform's key requests per hour, the keys refused most, and the
// audit trail's latest events.

const overviewOptions = (trpc: ReturnType<typeof useTRPC>) => trpc.overview.get.queryOptions();

export function OverviewScreen() {
  const trpc = useTRPC();
  const overview = useQuery(overviewOptions(trpc));
  return (
    <HeadedSection title="Overview" description="The platform at a glance.">
      <Loaded query={overview} what="the overview">
        {(loaded) => <OverviewBody overview={loaded} />}
      </Loaded>
    </HeadedSection>
  );
}

function Figure({ label, value, children }: { label: string; value: number; children?: React.ReactNode }) {
  return (
    <div className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
      <dt className="text-sm text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums">{value.toLocaleString("en")}</dd>
      {children && <dd className="mt-1 text-xs text-slate-500 dark:text-slate-400">{children}</dd>}
    </div>
  );
}

function OverviewBody({ overview }: { overview: Overview }) {
  const [now] = useState(() => Date.now());
  const organizations = overview.organizations_by_tier.reduce((sum, t) => sum + t.count, 0);
  return (
    <div className="mt-6 space-y-8">
      <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Figure label="Organizations" value={organizations}>
          {overview.organizations_by_tier.map((t) => `${t.count.toLocaleString("en")} ${t.tier}`).join(" · ") ||
            "None yet"}
        </Figure>
        <Figure label="Users" value={overview.users} />
        <Figure label="Active API keys" value={overview.active_keys} />
        <Figure label="Keys expiring this week" value={overview.keys_expiring_this_week} />
      </dl>

      <HeadedSection
        title="Key requests"
        level={2}
        description="Every API key's requests across the platform, by outcome."
      >
        <div className="mt-4">
          <UsageChart buckets={overview.requests_per_hour} now={now} label="Key requests across the platform" />
        </div>
      </HeadedSection>

      <HeadedSection
        title="Keys refused most"
        level={2}
        description="Requests refused with 401, 403 or 429 over the last 7 days."
      >
        {overview.most_refused_keys.length === 0 ? (
          <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">No key was refused this week.</p>
        ) : (
          <div className="mt-4">
            <DataTable caption="Keys refused most" columns={["Key", "Owner", "Refused"]}>
              {overview.most_refused_keys.map((key) => (
                <tr key={key.id}>
                  <th scope="row" className={`${td} text-left font-medium`}>
                    <Link href={`/console/api-keys/${key.id}`} className={textLink}>
                      {key.name}
                    </Link>{" "}
                    <span className={`font-mono text-xs ${mutedText}`}>{key.key_prefix}…</span>
                  </th>
                  <Cell>
                    <Link href={`/console/users/${key.user_id}`} className={textLink}>
                      {key.username}
                    </Link>
                  </Cell>
                  <Cell className="tabular-nums">{key.refused.toLocaleString("en")}</Cell>
                </tr>
              ))}
            </DataTable>
          </div>
        )}
      </HeadedSection>

      <HeadedSection title="Latest events" level={2} description="The audit trail's newest entries.">
        {overview.latest_events.length === 0 ? (
          <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">Nothing has happened yet.</p>
        ) : (
          <div className="mt-4">
            <EventTable events={overview.latest_events} caption="Latest events" />
          </div>
        )}
        <p className="mt-3 text-sm">
          <Link href="/console/audit-log" className={textLink}>
            Open the audit log
          </Link>
        </p>
      </HeadedSection>
    </div>
  );
}
