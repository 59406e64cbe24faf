"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { EventTable } from "./event-table";
import { auditListOptions, type AuditFilters } from "./queries";
import { FormLoading } from "@/components/ui/form-loading";
import { HeadedSection } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

// The audit trail in the console: the platform's "Audit log" (filters: actor, action, target and
// a time range), and the "Activity" of one user or organization. Each row opens to its changes.
// The filters (a form, with the form library and its validation) load in the browser after the
// page, not with it: the events show without them.

const FilterForm = dynamic(() => import("./audit-filters").then((m) => m.FilterForm), {
  ssr: false,
  // The filters' height on a phone, a tablet and a desktop.
  loading: () => <FormLoading className="min-h-[28.625rem] sm:min-h-[19rem] lg:min-h-[9.25rem]" />,
});

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
