"use client";

import Link from "next/link";
import { Fragment, useState, type ComponentProps } from "react";
import type { AuditEvent } from "@/lib/schemas/audit";
import { Badge } from "@/components/ui/badge";
import { linkButton, mutedText, textLink } from "@/components/ui/styles";
import { DataTable, td } from "@/components/ui/table";
import { Code, JsonValue, WhenCell } from "@/components/ui/values";
import { auditAction } from "@/lib/audit-actions";

// Audit events as a table whose rows open to their changes: the audit log's and activity lists'
// (audit-log.tsx), and the overview's latest events, which need none of the lists' filters.

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
        <dt>Event type</dt>
        <dd className="font-mono wrap-anywhere">{auditAction(event.action).type}</dd>
        {event.target.id && (
          <>
            <dt>Target</dt>
            <dd className="font-mono wrap-anywhere">
              {event.target.type} {event.target.id}
            </dd>
          </>
        )}
        {event.actor.user_id && (
          <>
            <dt>Actor</dt>
            <dd className="font-mono wrap-anywhere">{event.actor.user_id}</dd>
          </>
        )}
        <dt>Request</dt>
        <dd className="wrap-anywhere">{event.request_id ?? "—"}</dd>
        <dt>Address</dt>
        <dd>{event.ip ?? "—"}</dd>
        <dt>User-Agent</dt>
        <dd className="wrap-anywhere">{event.user_agent ?? "—"}</dd>
      </dl>
    </div>
  );
}

function Actor({ actor }: { actor: AuditEvent["actor"] }) {
  const name = actor.username ?? actor.user_id;
  return (
    <>
      {actor.user_id && name ? (
        <Link href={`/console/users/${actor.user_id}`} className={textLink} title={actor.user_id}>
          {name}
        </Link>
      ) : (
        <span className={mutedText}>
          {{ cli: "CLI", system: "System", scim: "Directory (SCIM)" }[actor.auth as string] ?? "Unknown"}
        </span>
      )}
      <span className={`block text-xs ${mutedText}`}>
        {actor.auth === "api_key" || actor.auth === "scim"
          ? `${actor.auth === "scim" ? "token" : "key"} ${actor.key_prefix ?? ""}…`
          : actor.auth}
      </span>
    </>
  );
}

const TARGET_PAGES: Readonly<Record<string, (id: string) => string>> = {
  user: (id) => `/console/users/${id}`,
  member: (id) => `/console/users/${id}`,
  organization: (id) => `/console/organizations/${id}`,
  api_key: (id) => `/console/api-keys/${id}`,
  role: (id) => `/console/roles/${id}`,
};

/** What an event acted on, by name (its id on hover and in the details), linked to its page when it has one. */
function Target({ target }: { target: AuditEvent["target"] }) {
  if (!target.type) return <span className={mutedText}>—</span>;
  const kind = target.type.replace(/_/g, " ");
  const page = target.id && target.name ? TARGET_PAGES[target.type]?.(target.id) : undefined;
  const shown = target.name ?? target.id;
  return (
    <>
      <span className={`block text-xs ${mutedText}`}>{kind}</span>
      {shown &&
        (page ? (
          <Link href={page} className={`${textLink} break-words`} title={target.id ?? undefined}>
            {shown}
          </Link>
        ) : (
          <span
            className={target.name ? "break-words" : "font-mono text-xs wrap-anywhere"}
            title={target.id ?? undefined}
          >
            {shown}
          </span>
        ))}
    </>
  );
}

function EventRows({ event }: { event: AuditEvent }) {
  const [open, setOpen] = useState(false);
  const action = auditAction(event.action);
  const detailsId = `audit-${event.id}`;
  // A sign-in, or a refused change, changed nothing: its row opens to the request's details only.
  const opens = Object.keys(event.changes ?? {}).length > 0 ? "changes" : "details";
  return (
    <Fragment>
      <tr>
        <WhenCell iso={event.occurred_at} />
        <td className={td}>
          <Actor actor={event.actor} />
        </td>
        <th scope="row" className={`${td} text-left font-medium`}>
          {action.label}
        </th>
        <td className={td}>
          <Target target={event.target} />
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
            {open ? `Hide ${opens}` : `Show ${opens}`}
            <span className="sr-only">
              {" "}
              of {action.label} at {event.occurred_at}
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
