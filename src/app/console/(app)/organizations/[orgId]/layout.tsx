import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { OrganizationFrame } from "@/components/tenancy/organization-frame";
import { HydrateClient } from "@/trpc/server";
import { loadOrganization, type OrgPageProps } from "./org-page";

export async function generateMetadata({ params }: OrgPageProps): Promise<Metadata> {
  const org = await loadOrganization((await params).orgId);
  return { title: `${org?.name ?? "No such organization"} — svc console` };
}

export default async function OrganizationLayout({ params, children }: OrgPageProps & { children: ReactNode }) {
  const { orgId } = await params;
  const org = await loadOrganization(orgId);
  if (!org) {
    return (
      <section aria-labelledby="missing-heading">
        <h1 id="missing-heading" className="text-2xl font-bold tracking-tight">
          No such organization
        </h1>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
          There is no organization at this address.{" "}
          <Link
            href="/console/organizations"
            className="font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-300"
          >
            See all organizations
          </Link>
          .
        </p>
      </section>
    );
  }
  return (
    <HydrateClient>
      <OrganizationFrame orgId={orgId}>{children}</OrganizationFrame>
    </HydrateClient>
  );
}
