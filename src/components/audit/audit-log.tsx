"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { listAuditEventsQuery } from "@/lib/schemas/audit";
import { useTRPC } from "@/trpc/react";
import { EventTable } from "./event-table";
import { auditListOptions, type AuditFilters } from "./queries";
import { SelectField, TextField } from "@/components/ui/fields";
import { AUDIT_ACTIONS, auditAction } from "@/lib/audit-actions";
import { Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { HeadedSection } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

// The audit trail in the console: the platform's "Audit log" (filters: actor, action, target and
// a time range), and the "Activity" of one user or organization. Each row opens to its changes.

const filterSchema = listAuditEventsQuery.pick({
  action: true,
  actor_user_id: true,
  actor_username: true,
  target_id: true,
  since: true,
  until: true,
});

type FilterValues = Record<keyof AuditFilters, string>;
const BLANK: FilterValues = { action: "", actor_user_id: "", actor_username: "", target_id: "", since: "", until: "" };

/**
 * The actions to filter by, by what happened ("API key created"), alphabetically. Operations that
 * share an event type (a personal key's and a service account's creation) say which they are.
 */
const ACTION_OPTIONS = (() => {
  const labels = AUDIT_ACTIONS.map((value) => ({ value, label: auditAction(value).label }));
  const shared = (label: string) => labels.filter((l) => l.label === label).length > 1;
  return [
    { value: "", label: "Any action" },
    ...labels
      .map(({ value, label }) => ({ value, label: shared(label) ? `${label} (${value})` : label }))
      .sort((a, b) => a.label.localeCompare(b.label)),
  ];
})();

/** A datetime-local value (the browser's local time) as an ISO moment; blank stays unset. */
function moment(value: string): string | undefined {
  if (value.trim() === "") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

function FilterForm({
  onApply,
  fixed,
}: {
  onApply: (filters: AuditFilters) => void;
  fixed: ReadonlySet<keyof AuditFilters>;
}) {
  const form = useSchemaForm<FilterValues, AuditFilters>({
    schema: filterSchema,
    defaultValues: BLANK,
    toInput: (values) => ({
      action: values.action.trim() || undefined,
      actor_user_id: values.actor_user_id.trim() || undefined,
      actor_username: values.actor_username.trim() || undefined,
      target_id: values.target_id.trim() || undefined,
      since: moment(values.since),
      until: moment(values.until),
    }),
    submit: async (filters) => onApply(filters),
  });
  return (
    <Form
      form={form}
      label="Filter events"
      className="grid gap-4 rounded-xl border border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-5 dark:border-slate-800"
    >
      <SelectField label="Action" name="action" options={ACTION_OPTIONS} />
      {!fixed.has("actor_user_id") && <TextField label="Actor (username)" name="actor_username" autoComplete="off" />}
      {!fixed.has("target_id") && <TextField label="Target (id)" name="target_id" mono />}
      <TextField label="From" name="since" type="datetime-local" />
      <TextField label="Until" name="until" type="datetime-local" />
      <SubmitRow label="Apply filters" pendingLabel="Applying…" className="sm:col-span-2 lg:col-span-5" />
    </Form>
  );
}

/** A list of events with its filters: the platform's, or one organization's (`orgId`), or about one user or target (`fixed`). */
export function AuditEvents({ orgId, fixed = {} }: { orgId?: string; fixed?: AuditFilters }) {
  const trpc = useTRPC();
  const [filters, setFilters] = useState<AuditFilters>({});
  const list = useInfiniteQuery({
    ...auditListOptions(trpc, { ...filters, ...fixed }, orgId),
    placeholderData: keepPreviousData,
  });
  const events = list.data?.pages.flatMap((page) => page.data) ?? [];
  const filtered = Object.values(filters).some((v) => v !== undefined);
  return (
    <div className="space-y-6">
      <FilterForm onApply={setFilters} fixed={new Set(Object.keys(fixed) as (keyof AuditFilters)[])} />
      {list.isPending ? (
        <LoadingState label="Loading events…" />
      ) : list.isError && events.length === 0 ? (
        <ErrorState title="The events could not be loaded." error={list.error} onRetry={() => void list.refetch()} />
      ) : events.length === 0 ? (
        <EmptyState title={filtered ? "No event matches these filters." : "No events yet."} />
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
