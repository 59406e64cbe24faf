"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS } from "@/lib/organizations";
import { Dialog } from "@/components/ui/dialog";
import { mutedText, primaryButton, textLink } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { organizationListOptions, type OrganizationFilters } from "./queries";
import { Badge, StatusBadge, TierBadge } from "@/components/ui/badge";
import { optionsOf, SelectField, ShowDeletedField } from "@/components/ui/fields";
import { useListFilters } from "@/components/ui/filter-bar";
import { ListScreen } from "@/components/ui/resource-section";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// Organizations: search by name or domain, filter by status and tier, deleted ones on request,
// a page at a time; "Create organization" opens the new organization's page. The create form
// (with its validation) loads when first opened, not with the page.

const CreateOrganizationForm = onDemand(
  () => import("./create-organization-form").then((m) => m.CreateOrganizationForm),
  { loading: () => <FormLoading /> },
);

const ANY = { value: "", label: "Any" };

export function OrganizationsScreen() {
  const trpc = useTRPC();
  const filters = useListFilters({
    q: "",
    status: undefined as OrganizationFilters["status"],
    tier: undefined as OrganizationFilters["tier"],
    include_deleted: false,
  });
  const { q, status, tier, include_deleted } = filters.applied;
  const [creating, setCreating] = useState(false);
  const list = useInfiniteQuery({
    ...organizationListOptions(trpc, {
      ...(q ? { q } : {}),
      ...(status ? { status } : {}),
      ...(tier ? { tier } : {}),
      ...(include_deleted ? { include_deleted: "true" } : {}),
    }),
    placeholderData: keepPreviousData,
  });

  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create organization
    </button>
  );

  return (
    <ListScreen
      title="Organizations"
      description="Tenant organizations: their profiles, subscription tiers, settings, LLM configs, orchestrator instances and central points."
      action={createButton}
      placeholder="Name, display name or domain"
      filters={filters}
      filterFields={
        <>
          <AnyOfField label="Status" values={ORGANIZATION_STATUSES} {...filters.choice("status")} />
          <AnyOfField label="Tier" values={SUBSCRIPTION_TIERS} {...filters.choice("tier")} />
          <ShowDeletedField noun="organizations" filters={filters} />
        </>
      }
      query={list}
      columns={["Name", "Domain", "Tier", "Status", "Created"]}
      row={(org) => (
        <>
          <th scope="row" className={`${td} min-w-48 text-left font-medium`}>
            <Link href={`/console/organizations/${org.id}`} className={textLink}>
              {org.name}
            </Link>
            {org.display_name && org.display_name !== org.name && (
              <span className={`block text-xs font-normal ${mutedText}`}>{org.display_name}</span>
            )}
          </th>
          <td className={td}>{org.domain ?? <span className={mutedText}>None</span>}</td>
          <td className={td}>
            <TierBadge tier={org.tier} />
          </td>
          <td className={td}>
            <span className="flex flex-wrap gap-1">
              <StatusBadge status={org.status} />
              {org.is_deleted && <Badge tone="bad">deleted</Badge>}
            </span>
          </td>
          <WhenCell iso={org.created_at} />
        </>
      )}
      empty={{ title: "No organizations yet", body: "Create the first tenant organization of the platform." }}
    >
      <CreateOrganizationDialog open={creating} onClose={() => setCreating(false)} />
    </ListScreen>
  );
}

/** A filter of one of `values`, or "Any" (undefined). */
function AnyOfField<V extends string>({
  label,
  values,
  value,
  onChange,
}: {
  label: string;
  values: readonly V[];
  value: V | undefined;
  onChange: (value: V | undefined) => void;
}) {
  return (
    <SelectField
      label={label}
      value={value ?? ""}
      onChange={(event) => onChange(values.find((v) => v === event.target.value))}
      options={[ANY, ...optionsOf(values)]}
      className="w-40"
    />
  );
}

function CreateOrganizationDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Create organization"
      description="A new tenant. Its admins can edit the profile later; only the platform changes its tier."
    >
      <CreateOrganizationForm onCancel={onClose} />
    </Dialog>
  );
}
