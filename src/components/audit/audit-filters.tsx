"use client";

import { listAuditEventsQuery } from "@/lib/schemas/audit";
import { AUDIT_ACTIONS, auditAction } from "@/lib/audit-actions";
import type { AuditFilters } from "./queries";
import { SelectField, TextField } from "@/components/ui/fields";
import { Form, SubmitRow, useSchemaForm } from "@/components/ui/form";

// The audit log's filters (./audit-log.tsx): actor, action, target and a time range, checked with
// the schema of the list's query.

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

export function FilterForm({
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
