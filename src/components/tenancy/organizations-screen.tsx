"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { createOrganizationInput, ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS } from "@/lib/schemas/organizations";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { organizationListOptions, type OrganizationFilters } from "./queries";
import { Badge, StatusBadge, TierBadge } from "@/components/ui/badge";
import { CheckboxField, DialogButtons, optionsOf, SelectField, TextField, useDebounced, useFormErrors } from "@/components/ui/form";
import { EmptyState, ErrorState, FormAlert, LoadingState } from "@/components/ui/states";
import { DataTable, td } from "@/components/ui/table";
import { When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// Organizations: search by name or domain, filter by status and tier, deleted ones on request,
// a page at a time; "Create organization" opens the new organization's page.

const ANY = { value: "", label: "Any" };


export function OrganizationsScreen() {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<OrganizationFilters["status"]>();
  const [tier, setTier] = useState<OrganizationFilters["tier"]>();
  const [showDeleted, setShowDeleted] = useState(false);
  const [creating, setCreating] = useState(false);
  const q = useDebounced(search.trim());

  const filters: OrganizationFilters = {
    ...(q ? { q } : {}),
    ...(status ? { status } : {}),
    ...(tier ? { tier } : {}),
    ...(showDeleted ? { include_deleted: "true" } : {}),
  };
  const list = useInfiniteQuery({ ...organizationListOptions(trpc, filters), placeholderData: keepPreviousData });
  const orgs = list.data?.pages.flatMap((page) => page.data) ?? [];
  const filtered = Object.keys(filters).length > 0;

  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create organization
    </button>
  );

  function content() {
    if (list.isPending) return <LoadingState label="Loading organizations…" />;
    if (list.isError && orgs.length === 0) return <ErrorState title="The organizations could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (orgs.length === 0) {
      return filtered ? (
        <EmptyState title="No organization matches." body="Change the search or the filters to see more." />
      ) : (
        <EmptyState title="No organizations yet" body="Create the first tenant organization of the platform." action={createButton} />
      );
    }
    return (
      <DataTable caption="Organizations" columns={["Name", "Domain", "Tier", "Status", "Created"]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more organizations" }}>
        {orgs.map((org) => (
          <tr key={org.id}>
            <th scope="row" className={`${td} min-w-48 text-left font-medium`}>
              <Link href={`/console/organizations/${org.id}`} className="text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
                {org.name}
              </Link>
              {org.display_name && org.display_name !== org.name && (
                <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">{org.display_name}</span>
              )}
            </th>
            <td className={td}>{org.domain ?? <span className="text-slate-500 dark:text-slate-400">None</span>}</td>
            <td className={td}>
              <TierBadge tier={org.tier} />
            </td>
            <td className={td}>
              <span className="flex flex-wrap gap-1">
                <StatusBadge status={org.status} />
                {org.is_deleted && <Badge tone="bad">deleted</Badge>}
              </span>
            </td>
            <td className={td}>
              <When iso={org.created_at} />
            </td>
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="organizations-heading">
      <PageHeader id="organizations-heading" title="Organizations" actions={createButton}>
        Tenant organizations: their profiles, subscription tiers, settings, LLM configs, orchestrator instances and central points.
      </PageHeader>

      <div role="search" aria-label="Find organizations" className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-[minmax(0,2fr)_1fr_1fr_auto] lg:items-end">
        <TextField
          label="Search organizations"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="Name, display name or domain"
          autoComplete="off"
        />
        <SelectField
          label="Status"
          value={status ?? ""}
          onChange={(event) => setStatus((event.target.value || undefined) as OrganizationFilters["status"])}
          options={[ANY, ...optionsOf(ORGANIZATION_STATUSES)]}
        />
        <SelectField
          label="Tier"
          value={tier ?? ""}
          onChange={(event) => setTier((event.target.value || undefined) as OrganizationFilters["tier"])}
          options={[ANY, ...optionsOf(SUBSCRIPTION_TIERS)]}
        />
        <CheckboxField label="Show deleted organizations" checked={showDeleted} onChange={(event) => setShowDeleted(event.target.checked)} className="pb-2" />
      </div>

      <div className="mt-6">{content()}</div>

      <CreateOrganizationDialog open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

const CREATE_LABELS = {
  name: "Name",
  display_name: "Display name",
  domain: "Domain",
  contact_email: "Contact email",
  website: "Website",
  tier: "Subscription tier",
  status: "Status",
} as const;

function CreateOrganizationDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Create organization" description="A new tenant. Its admins can edit the profile later; only the platform changes its tier.">
      <CreateOrganizationForm onCancel={onClose} />
    </Dialog>
  );
}

function CreateOrganizationForm({ onCancel }: { onCancel: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(CREATE_LABELS, formRef);
  const [values, setValues] = useState({ name: "", display_name: "", domain: "", contact_email: "", website: "", tier: "free", status: "active" });
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: event.target.value }));

  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: (org) => {
        void queryClient.invalidateQueries(trpc.organizations.list.pathFilter());
        router.push(`/console/organizations/${org.id}`);
      },
      onError: form.fromServer,
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const optional = (text: string) => (text.trim() === "" ? undefined : text.trim());
    const input = form.check(createOrganizationInput, {
      name: values.name,
      display_name: optional(values.display_name),
      domain: optional(values.domain),
      contact_email: optional(values.contact_email),
      website: optional(values.website),
      tier: values.tier,
      status: values.status,
    });
    if (input) create.mutate(input);
  }

  const { errors } = form;
  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-5">
      <TextField label="Name" value={values.name} onChange={set("name")} error={errors.name} autoFocus autoComplete="off" hint="How the platform refers to the organization." />
      <TextField label="Display name" value={values.display_name} onChange={set("display_name")} error={errors.display_name} autoComplete="off" />
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField label="Domain" value={values.domain} onChange={set("domain")} error={errors.domain} placeholder="example.com" autoComplete="off" hint="Optional; unique among organizations." />
        <TextField label="Contact email" type="email" value={values.contact_email} onChange={set("contact_email")} error={errors.contact_email} autoComplete="off" />
      </div>
      <TextField label="Website" type="url" value={values.website} onChange={set("website")} error={errors.website} placeholder="https://example.com" autoComplete="off" />
      <div className="grid gap-5 sm:grid-cols-2">
        <SelectField label="Subscription tier" value={values.tier} onChange={set("tier")} options={optionsOf(SUBSCRIPTION_TIERS)} error={errors.tier} hint="Central points need pro or higher." />
        <SelectField label="Status" value={values.status} onChange={set("status")} options={optionsOf(ORGANIZATION_STATUSES)} error={errors.status} />
      </div>
      <FormAlert message={errors.form} />
      <DialogButtons onCancel={onCancel} pending={create.isPending} label="Create organization" pendingLabel="Creating…" />
    </form>
  );
}
