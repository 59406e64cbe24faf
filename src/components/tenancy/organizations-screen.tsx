"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useState } from "react";
import { ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS } from "@/lib/organizations";
import { Dialog } from "@/components/ui/dialog";
import { mutedText, primaryButton, textLink } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { organizationListOptions, type OrganizationFilters } from "./queries";
import { Badge, StatusBadge, TierBadge } from "@/components/ui/badge";
import { CheckboxField, optionsOf, SelectField, TextField } from "@/components/ui/fields";
import { useDebounced } from "@/components/ui/use-debounced";
import { ListView } from "@/components/ui/resource-section";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { HeadedSection } from "@/components/ui/page-header";
import { FormLoading } from "@/components/ui/form-loading";

// Organizations: search by name or domain, filter by status and tier, deleted ones on request,
// a page at a time; "Create organization" opens the new organization's page. The create form
// (with its validation) loads when first opened, not with the page.

const CreateOrganizationForm = dynamic(
  () => import("./create-organization-form").then((m) => m.CreateOrganizationForm),
  { loading: () => <FormLoading /> },
);

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

  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create organization
    </button>
  );

  return (
    <HeadedSection
      title="Organizations"
      description="Tenant organizations: their profiles, subscription tiers, settings, LLM configs, orchestrator instances and central points."
      actions={createButton}
    >
      <div
        role="search"
        aria-label="Find organizations"
        className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-[minmax(0,2fr)_1fr_1fr_auto] lg:items-end"
      >
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
          onChange={(event) => setStatus(ORGANIZATION_STATUSES.find((s) => s === event.target.value))}
          options={[ANY, ...optionsOf(ORGANIZATION_STATUSES)]}
        />
        <SelectField
          label="Tier"
          value={tier ?? ""}
          onChange={(event) => setTier(SUBSCRIPTION_TIERS.find((t) => t === event.target.value))}
          options={[ANY, ...optionsOf(SUBSCRIPTION_TIERS)]}
        />
        <CheckboxField
          label="Show deleted organizations"
          checked={showDeleted}
          onChange={(event) => setShowDeleted(event.target.checked)}
          className="pb-2"
        />
      </div>

      <div className="mt-6">
        <ListView
          query={list}
          caption="Organizations"
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
          empty={{
            title: "No organizations yet",
            body: "Create the first tenant organization of the platform.",
            action: createButton,
          }}
          filtered={{
            active: Object.keys(filters).length > 0,
            title: "No organization matches.",
            body: "Change the search or the filters to see more.",
          }}
        />
      </div>

      <CreateOrganizationDialog open={creating} onClose={() => setCreating(false)} />
    </HeadedSection>
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
