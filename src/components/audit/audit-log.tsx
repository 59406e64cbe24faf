"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useState, type ComponentProps } from "react";
import { listAuditEventsQuery, type AuditEvent } from "@/lib/schemas/audit";
import { useTRPC } from "@/trpc/react";
import { auditListOptions, type AuditFilters } from "./queries";
import { Badge } from "@/components/ui/badge";
import { TextField } from "@/components/ui/fields";
import { Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { HeadedSection } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { linkButton, mutedText, textLink } from "@/components/ui/styles";
import { DataTable, td } from "@/components/ui/table";
import { Code, JsonValue, WhenCell } from "@/components/ui/values";

// The audit trail in the console: the platform's "Audit log" (filters: actor, action, target and
// a time range), and the "Activity" of one user or organization. Each row opens to its changes.

const filterSchema = listAuditEventsQuery.pick({
  action: true,
  actor_user_id: true,
  target_id: true,
  since: true,
  until: true,
});

type FilterValues = Record<keyof AuditFilters, string>;
const BLANK: FilterValues = { action: "", actor_user_id: "", target_id: "", since: "", until: "" };

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
      <TextField label="Action" name="action" placeholder="createApiKey" mono />
      {!fixed.has("actor_user_id") && <TextField label="Actor (user id)" name="actor_user_id" mono />}
      {!fixed.has("target_id") && <TextField label="Target (id)" name="target_id" mono />}
      <TextField label="From" name="since" type="datetime-local" />
      <TextField label="Until" name="until" type="datetime-local" />
      <SubmitRow label="Apply filters" pendingLabel="Applying…" className="sm:col-span-2 lg:col-span-5" />
    </Form>
  );
}

function Changes({ event }: { event: AuditEvent }) {
  const changes = Object.entries(event.changes ?? {});
  return (
    <div className="space-y-3">
      {changes.length === 0 ? (
        <p className={mutedText}>
          {event.outcome === "denied" ? "Refused: nothing changed." : "No field changes recorded."}
        </p>
      ) : (
        <table className="text-sm">
          <caption className="sr-only">Changes</caption>
          <thead>
            <tr>
              <th scope="col" className="pr-4 text-left font-semibold">
                Field
              </th>
              <th scope="col" className="pr-4 text-left font-semibold">
                Before
              </th>
              <th scope="col" className="text-left font-semibold">
                After
              </th>
            </tr>
          </thead>
          <tbody>
            {changes.map(([field, change]) => (
              <tr key={field}>
                <th scope="row" className="pr-4 text-left align-top font-normal">
                  <Code>{field}</Code>
                </th>
                {"redacted" in change ? (
                  <td colSpan={2} className={mutedText}>
                    Changed (secret: not recorded)
                  </td>
                ) : (
                  <>
                    <td className="pr-4 align-top">
                      <JsonValue value={change.old} />
                    </td>
                    <td className="align-top">
                      <JsonValue value={change.new} />
                    </td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dl className={`grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs ${mutedText}`}>
        <dt>Request</dt>
        <dd className="break-all">{event.request_id ?? "—"}</dd>
        <dt>Address</dt>
        <dd>{event.ip ?? "—"}</dd>
        <dt>User-Agent</dt>
        <dd className="break-all">{event.user_agent ?? "—"}</dd>
      </dl>
    </div>
  );
}

function Actor({ actor }: { actor: AuditEvent["actor"] }) {
  const name = actor.username ?? actor.user_id;
  return (
    <>
      {actor.user_id && name ? (
        <Link href={`/console/users/${actor.user_id}`} className={textLink}>
          {name}
        </Link>
      ) : (
        <span className={mutedText}>
          {actor.auth === "cli" ? "CLI" : actor.auth === "system" ? "System" : "Unknown"}
        </span>
      )}
      <span className={`block text-xs ${mutedText}`}>
        {actor.auth === "api_key" ? `key ${actor.key_prefix ?? ""}…` : actor.auth}
      </span>
    </>
  );
}

function EventRows({ event }: { event: AuditEvent }) {
  const [open, setOpen] = useState(false);
  const detailsId = `audit-${event.id}`;
  return (
    <Fragment>
      <tr>
        <WhenCell iso={event.occurred_at} />
        <td className={td}>
          <Actor actor={event.actor} />
        </td>
        <th scope="row" className={`${td} text-left font-medium`}>
          <Code>{event.action}</Code>
        </th>
        <td className={`${td} break-all`}>
          {event.target.type ?? <span className={mutedText}>—</span>}
          {event.target.id && <span className={`block font-mono text-xs ${mutedText}`}>{event.target.id}</span>}
        </td>
        <td className={td}>
          {event.outcome === "denied" ? <Badge tone="bad">Denied</Badge> : <Badge tone="good">Success</Badge>}
        </td>
        <td className={td}>
          <button
            type="button"
            className={linkButton}
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? "Hide changes" : "Show changes"}
            <span className="sr-only">
              {" "}
              of {event.action} at {event.occurred_at}
            </span>
          </button>
        </td>
      </tr>
      {open && (
        <tr id={detailsId}>
          <td colSpan={6} className={`${td} bg-slate-50 dark:bg-slate-950`}>
            <Changes event={event} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}

/** Events as rows that open to their changes. */
export function EventTable({
  events,
  caption = "Audit events",
  busy = false,
  more,
}: {
  events: readonly AuditEvent[];
  caption?: string;
  busy?: boolean;
  more?: ComponentProps<typeof DataTable>["more"];
}) {
  return (
    <DataTable
      caption={caption}
      columns={["When", "Actor", "Action", "Target", "Outcome", { label: "Changes", hidden: true }]}
      busy={busy}
      more={more}
    >
      {events.map((event) => (
        <EventRows key={event.id} event={event} />
      ))}
    </DataTable>
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
