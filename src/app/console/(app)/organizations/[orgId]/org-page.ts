import { TRPCError } from "@trpc/server";
import { cache } from "react";
import { id } from "@/lib/schemas/common";
import { organizationOptions } from "@/components/tenancy/queries";
import { getQueryClient, trpc } from "@/trpc/server";

// What every page of an organization shares on the server: its id from the URL, and the
// organization itself (deleted or not), fetched once per request into the query client the
// browser hydrates from.

export interface OrgPageProps {
  params: Promise<{ orgId: string }>;
}

/** The organization, or null when the id is not one or names no organization. */
export const loadOrganization = cache(async (orgId: string) => {
  if (!id.safeParse(orgId).success) return null;
  try {
    return await getQueryClient().fetchQuery(organizationOptions(trpc, orgId));
  } catch (error) {
    if (error instanceof TRPCError && error.code === "NOT_FOUND") return null;
    throw error;
  }
});
