"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import type { ChangeEvent } from "react";
import { useTRPC } from "@/trpc/react";
import { EventTable } from "./event-table";
import { auditListOptions, type AuditFilters } from "./queries";
import { SelectField, TextField } from "@/components/ui/fields";
import { AUDIT_ACTIONS, auditActionChoice } from "@/lib/audit-actions";
import { FilterBar, NoMatch, useListFilters } from "@/components/ui/filter-bar";
import { HeadedSection } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

// The audit trail in the console: the platform's "Audit log" (filters: actor, action, target and
// a time range), and the "Activity" of one user or organization. Each row opens to its changes.
// The filters (a form, with the form library and its validation) load in the browser after the
// page, not with it: the events show without them.

type FilterValues = Record<"action" | "actor_username" | "target_id" | "since" | "until", string>;
const NONE: FilterValues = { action: "", actor_username: "", target_id: "", since: "", until: "" };

/**
 * The actions to filter by, by what happened ("API key created"), alphabetically. Operations that
 * share an event type (a personal key's and a service account's creation) say which they are.
 */
const ACTION_OPTIONS = [
  { value: "", label: "Any action" },
  ...AUDIT_ACTIONS.map((value) => ({ value, label: auditActionChoice(value) })).sort((a, b) =>
    a.label.localeCompare(b.label),
  ),
];

/** A datetime-local value (the browser's local time) as an ISO moment; blank stays unset. */
function moment(value: string): string | undefined {
  if (value.trim() === "") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** The filters as the list query takes them: the blank ones left out, moments in ISO. */
function queryOf({ action, actor_username, target_id, since, until }: FilterValues): AuditFilters {
  return {
    ...(action ? { action } : {}),
    ...(actor_username ? { actor_username } : {}),
    ...(target_id ? { target_id } : {}),
    ...(since ? { since: moment(since) } : {}),
    ...(until ? { until: moment(until) } : {}),
  };
}

/** A list of events with its filters: the platform's, or one organization's (`orgId`), or about one user or target (`fixed`). */
export function AuditEvents({ orgId, fixed = {} }: { orgId?: string; fixed?: AuditFilters }) {
  const trpc = useTRPC();
  const filters = useListFilters(NONE, ["actor_username", "target_id"]);
  const list = useInfiniteQuery({
    ...auditListOptions(trpc, { ...queryOf(filters.applied), ...fixed }, orgId),
    placeholderData: keepPreviousData,
  });
  const events = list.data?.pages.flatMap((page) => page.data) ?? [];
  const field = (key: keyof FilterValues) => ({
    value: filters.values[key],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => filters.set(key, event.target.value),
  });
  return (
    <div className="space-y-6">
      <FilterBar noun="events" filters={filters}>
        <SelectField label="Action" options={ACTION_OPTIONS} {...field("action")} className="w-64" />
        {!("actor_user_id" in fixed) && (
          <TextField label="Actor (username)" autoComplete="off" {...field("actor_username")} />
        )}
        {!("target_id" in fixed) && <TextField label="Target (id)" autoComplete="off" mono {...field("target_id")} />}
        <TextField label="From" type="datetime-local" {...field("since")} />
        <TextField label="Until" type="datetime-local" {...field("until")} />
      </FilterBar>
      {list.isPending ? (
        <LoadingState label="Loading events…" />
      ) : list.isError && events.length === 0 ? (
        <ErrorState title="The events could not be loaded." error={list.error} onRetry={() => void list.refetch()} />
      ) : events.length === 0 && filters.active ? (
        <NoMatch noun="events" filters={filters} />
      ) : events.length === 0 ? (
        <EmptyState
          title="No events yet"
          body="Changes, sign-ins and refused requests are recorded here as they happen."
        />
      ) : (
        <EventTable
          events={events}
          busy={list.isFetching}
          more={{
            visible: list.hasNextPage,
            loading: list.isFetchingNextPage,
            onClick: () => void list.fetchNextPage(),
            label: "Show more events",
          }}
        />
      )}
    </div>
  );
}

export function AuditLogScreen() {
  return (
    <HeadedSection
      title="Audit log"
      description="Every change through the API, the console and the CLI, sign-ins and refused requests. Open a row to see what it changed."
    >
      <div className="mt-6">
        <AuditEvents />
      </div>
    </HeadedSection>
  );
}

/** A user's activity: what they did. */
export function UserActivitySection({ userId }: { userId: string }) {
  return (
    <HeadedSection level={2} className="mt-10" title="Activity" description="What this user did, newest first.">
      <div className="mt-4">
        <AuditEvents fixed={{ actor_user_id: userId }} />
      </div>
    </HeadedSection>
  );
}
