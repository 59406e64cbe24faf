"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiKey } from "@/lib/schemas/api-keys";
import { useTRPC } from "@/trpc/react";
import { UsageChart } from "@/components/usage/usage-chart";
import { Badge } from "@/components/ui/badge";
import { HeadedSection } from "@/components/ui/page-header";
import { useNotice } from "@/components/ui/resource-section";
import { BackLink, Loaded, Notice } from "@/components/ui/states";
import { dangerButton, secondaryButton } from "@/components/ui/styles";
import { CodeList } from "@/components/ui/values";
import { formatTimestamp } from "./format";
import { useKeyActions, type KeyActionStarts } from "./key-actions";
import { STATUS_TONE, statusOf } from "./key-table";

// One key: what it is, where it may act, its budget and metadata, when and from where it was last
// used, its requests by outcome, and (for its owner) the actions its row in the list has: edit,
// roll, change its balance, revoke.

const keyOptions = (trpc: ReturnType<typeof useTRPC>, keyId: string) =>
  trpc.apiKeys.get.queryOptions({ key_id: keyId });
const usageOptions = (trpc: ReturnType<typeof useTRPC>, keyId: string) =>
  trpc.apiKeys.usage.queryOptions({ key_id: keyId });

const back = <BackLink href="/console/api-keys">API keys</BackLink>;

/** `userId`: the signed-in admin, who may edit, roll and revoke their own keys here. */
export function KeyDetailScreen({ keyId, userId }: { keyId: string; userId: string }) {
  const trpc = useTRPC();
  const key = useQuery(keyOptions(trpc, keyId));
  return (
    <Loaded query={key} what="the API key" back={back}>
      {(loaded) => <KeyDetail apiKey={loaded} own={loaded.user_id === userId} />}
    </Loaded>
  );
}

/** The owner's actions on the key, as on its row in the list. */
function Actions({ apiKey, now, starts }: { apiKey: ApiKey; now: number; starts: KeyActionStarts }) {
  const status = statusOf(apiKey, now);
  if (!apiKey.is_active) return null;
  return (
    <div className="flex flex-wrap gap-2">
      <button type="button" className={secondaryButton} onClick={() => starts.onEdit(apiKey)}>
        Edit
      </button>
      {(status === "Active" || status === "Expires soon") && (
        <button type="button" className={secondaryButton} onClick={() => starts.onRoll(apiKey)}>
          Roll
        </button>
      )}
      {apiKey.credits && (
        <button type="button" className={secondaryButton} onClick={() => starts.onCredits(apiKey)}>
          Change balance
        </button>
      )}
      <button type="button" className={dangerButton} onClick={() => starts.onRevoke(apiKey)}>
        Revoke
      </button>
    </div>
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

/** How the key's refill reads: "To 10,000 every day", "To 10,000 on day 1 of each month". */
function refillText(refill: NonNullable<ApiKey["credits"]>["refill"]): string {
  if (!refill) return "None";
  const amount = `To ${refill.amount.toLocaleString("en")}`;
  return refill.interval === "daily" ? `${amount} every day` : `${amount} on day ${refill.day ?? 1} of each month`;
}

function KeyDetail({ apiKey, own }: { apiKey: ApiKey; own: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const usage = useQuery(usageOptions(trpc, apiKey.id));
  const [now] = useState(() => Date.now());
  const status = statusOf(apiKey, now);
  const notice = useNotice();
  const keyActions = useKeyActions(notice.say, () => void queryClient.invalidateQueries(trpc.apiKeys.pathFilter()));
  return (
    <div>
      {back}
      <HeadedSection
        title={apiKey.name}
        description={<span className="font-mono">{apiKey.key_prefix}…</span>}
        actions={
          <div className="flex flex-wrap items-center gap-3">
            <Badge tone={STATUS_TONE[status]}>{status}</Badge>
            {own && <Actions apiKey={apiKey} now={now} starts={keyActions.starts} />}
          </div>
        }
      >
        <div className="mt-4">
          <Notice text={notice.text} />
        </div>
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
          <Term term="Credits">
            {apiKey.credits ? (
              <span data-testid="credits-remaining">{apiKey.credits.remaining.toLocaleString("en")} left</span>
            ) : (
              "Unlimited"
            )}
          </Term>
          {apiKey.credits && (
            <>
              <Term term="Refill">{refillText(apiKey.credits.refill)}</Term>
              <Term term="Next refill">{formatTimestamp(apiKey.credits.next_refill_at, "None")}</Term>
            </>
          )}
          <Term term="Metadata">
            {Object.keys(apiKey.meta).length > 0 ? (
              <pre className="font-mono text-xs whitespace-pre-wrap">{JSON.stringify(apiKey.meta, null, 2)}</pre>
            ) : (
              "None"
            )}
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
        title="Requests"
        level={2}
        className="mt-8"
        description="By outcome, over the last 7 days. Counts arrive within a few seconds."
      >
        <div className="mt-4">
          <Loaded query={usage} what="the key's usage">
            {(loaded) => <UsageChart buckets={loaded.data} now={now} label={`Requests of ${apiKey.name}`} />}
          </Loaded>
        </div>
      </HeadedSection>
      {keyActions.dialogs}
    </div>
  );
}
