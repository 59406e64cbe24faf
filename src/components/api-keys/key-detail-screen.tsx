"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiKey } from "@/lib/schemas/api-keys";
import { useTRPC } from "@/trpc/react";
import { UsageChart } from "@/components/usage/usage-chart";
import { Badge } from "@/components/ui/badge";
import { HeadedSection } from "@/components/ui/page-header";
import { BackLink, Loaded } from "@/components/ui/states";
import { CodeList } from "@/components/ui/values";
import { formatTimestamp } from "./format";
import { STATUS_TONE, statusOf } from "./key-table";

// One key: what it is, where it may act, when and from where it was last used, and its requests
// per hour by outcome over the last 7 days.

export const keyOptions = (trpc: ReturnType<typeof useTRPC>, keyId: string) =>
  trpc.apiKeys.get.queryOptions({ key_id: keyId });
export const usageOptions = (trpc: ReturnType<typeof useTRPC>, keyId: string) =>
  trpc.apiKeys.usage.queryOptions({ key_id: keyId });

const back = <BackLink href="/console/api-keys">API keys</BackLink>;

export function KeyDetailScreen({ keyId }: { keyId: string }) {
  const trpc = useTRPC();
  const key = useQuery(keyOptions(trpc, keyId));
  return (
    <Loaded query={key} what="the API key" back={back}>
      {(loaded) => <KeyDetail apiKey={loaded} />}
    </Loaded>
  );
}

function Term({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="py-2 sm:grid sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="mt-1 text-sm sm:col-span-2 sm:mt-0 break-words">{children}</dd>
    </div>
  );
}

function KeyDetail({ apiKey }: { apiKey: ApiKey }) {
  const trpc = useTRPC();
  const usage = useQuery(usageOptions(trpc, apiKey.id));
  const [now] = useState(() => Date.now());
  const status = statusOf(apiKey, now);
  return (
    <div>
      {back}
      <HeadedSection
        title={apiKey.name}
        description={<span className="font-mono">{apiKey.key_prefix}…</span>}
        actions={<Badge tone={STATUS_TONE[status]}>{status}</Badge>}
      >
        <dl className="mt-4 divide-y divide-slate-200 dark:divide-slate-800">
          <Term term="Scopes">
            <CodeList items={apiKey.scopes} inline />
          </Term>
          <Term term="Created">{formatTimestamp(apiKey.created_at)}</Term>
          <Term term="Expires">{formatTimestamp(apiKey.expires_at)}</Term>
          <Term term="Rate limit">
            {apiKey.rate_limit
              ? `${apiKey.rate_limit.requests} requests per ${apiKey.rate_limit.window_seconds} s`
              : "The platform's default"}
          </Term>
          <Term term="Organizations">
            {apiKey.allowed_org_ids ? <CodeList items={apiKey.allowed_org_ids} inline /> : "All of its owner's"}
          </Term>
          <Term term="Networks">
            {apiKey.allowed_cidrs ? <CodeList items={apiKey.allowed_cidrs} inline /> : "Any address"}
          </Term>
          <Term term="Last used">{formatTimestamp(apiKey.last_used_at)}</Term>
          <Term term="Last address">
            {apiKey.last_used_ip ? (
              <span className="font-mono" data-testid="last-address">
                {apiKey.last_used_ip}
              </span>
            ) : (
              "None yet"
            )}
          </Term>
          <Term term="Last user agent">{apiKey.last_user_agent ?? "None yet"}</Term>
        </dl>
      </HeadedSection>
      <HeadedSection
        title="Requests per hour"
        level={2}
        className="mt-8"
        description="By outcome, over the last 7 days. Counts arrive within a few seconds."
      >
        <div className="mt-4">
          <Loaded query={usage} what="the key's usage">
            {(loaded) => <UsageChart buckets={loaded.data} now={now} label={`Requests per hour of ${apiKey.name}`} />}
          </Loaded>
        </div>
      </HeadedSection>
    </div>
  );
}
