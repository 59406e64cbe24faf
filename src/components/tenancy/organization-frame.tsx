"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import type { Organization } from "@/lib/schemas/organizations";
import { useTRPC } from "@/trpc/react";
import { organizationOptions } from "./queries";
import { Badge, StatusBadge, TierBadge } from "@/components/ui/badge";
import { NavLinks } from "@/components/ui/nav-links";
import { BackLink, Loaded } from "@/components/ui/states";

// The frame of an organization's page: its name and standing, and the sections of the page as
// links (each section is a page of its own, so it can be linked to and reloaded).

/** Each section's path is its label in kebab-case; the profile is the organization's own page. */
const ORG_SECTIONS = [
  "Profile",
  "Members",
  "Invitations",
  "Single sign-on",
  "Directory sync",
  "Service accounts",
  "Settings",
  "LLM configs",
  "Orchestrators",
  "Central points",
  "Conversations",
  "Webhooks",
  "Activity",
].map((label) => ({
  label,
  path: label === "Profile" ? "" : `/${label.toLowerCase().replaceAll(" ", "-")}`,
}));

/** The organization the page is about, as every section reads it (hydrated from the server). */
export function useOrganization(orgId: string) {
  const trpc = useTRPC();
  return useQuery(organizationOptions(trpc, orgId));
}

/** Refreshes every view of this organization: its page and the organizations list. */
export function useRefreshOrganization() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (org: Organization) => {
    queryClient.setQueryData(trpc.organizations.get.queryKey({ org_id: org.id, include_deleted: "true" }), org);
    void queryClient.invalidateQueries(trpc.organizations.list.pathFilter());
  };
}

export function OrganizationFrame({ orgId, children }: { orgId: string; children: ReactNode }) {
  const org = useOrganization(orgId);
  return (
    <Loaded query={org} what="the organization">
      {(loaded) => <Frame org={loaded}>{children}</Frame>}
    </Loaded>
  );
}

function Frame({ org, children }: { org: Organization; children: ReactNode }) {
  const pathname = usePathname();
  const base = `/console/organizations/${org.id}`;

  const current = ORG_SECTIONS.find((s) => pathname === `${base}${s.path}`) ?? ORG_SECTIONS[0]!;
  const deleted = org.is_deleted;
  return (
    <div>
      <BackLink href="/console/organizations">All organizations</BackLink>
      <OrganizationHeading org={org} />
      <div className="mt-6 border-b border-slate-200 dark:border-slate-800">
        <NavLinks
          label="Organization sections"
          links={ORG_SECTIONS.filter((s) => !deleted || s.path === "").map((section) => ({
            href: `${base}${section.path}`,
            label: section.label,
          }))}
          isCurrent={(href) => href === `${base}${current.path}`}
          listClassName="-mb-px flex flex-wrap gap-x-1"
          linkClassName={(active) =>
            `block border-b-2 px-3 py-2 text-sm whitespace-nowrap ${
              active
                ? "border-brand-600 font-semibold text-brand-700 dark:text-brand-300"
                : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
            }`
          }
        />
      </div>
      <div className="mt-6">
        {deleted && current.path !== "" ? (
          <p className="rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm dark:border-amber-900 dark:bg-amber-950">
            This organization is deleted. Restore it from its{" "}
            <Link href={base} className="font-medium underline">
              profile
            </Link>{" "}
            to manage its {current.label.toLowerCase()}.
          </p>
        ) : (
          children
        )}
      </div>
    </div>
  );
}

function OrganizationHeading({ org }: { org: Organization }) {
  return (
    <div className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-2">
      <h1 className="text-2xl font-bold tracking-tight">{org.name}</h1>
      <span className="flex flex-wrap items-center gap-1.5">
        <span className="sr-only">Tier:</span>
        <TierBadge tier={org.tier} />
        <span className="sr-only">Status:</span>
        <StatusBadge status={org.status} />
        {org.is_deleted && <Badge tone="bad">deleted</Badge>}
      </span>
      {org.display_name && org.display_name !== org.name && (
        <p className="w-full text-sm text-slate-600 dark:text-slate-300">{org.display_name}</p>
      )}
    </div>
  );
}
