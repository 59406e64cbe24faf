"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { CentralPoint } from "@/lib/schemas/central-points";
import { SUBSCRIPTION_TIERS } from "@/lib/organizations";
import { useTRPC } from "@/trpc/react";
import { useOrganization } from "./organization-frame";
import { centralPointListOptions, orchestratorChoicesOptions } from "./queries";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { ResourceSection } from "@/components/ui/resource-section";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's central points: stable handles for its orchestrator instances, pro tier and
// up. Below pro the section says so up front; the server's own refusal (tier_required) is shown
// in the dialog should anyone try anyway. The form (with its validation) loads when first opened.

const CentralPointForm = onDemand(() => import("./central-point-form").then((m) => m.CentralPointForm), {
  loading: () => <FormLoading />,
});

const belowPro = (tier: (typeof SUBSCRIPTION_TIERS)[number]) =>
  SUBSCRIPTION_TIERS.indexOf(tier) < SUBSCRIPTION_TIERS.indexOf("pro");

export function CentralPointsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useOrganization(orgId);
  const list = useInfiniteQuery(centralPointListOptions(trpc, orgId));
  const choices = useQuery(orchestratorChoicesOptions(trpc, orgId));
  const remove = useMutation(trpc.centralPoints.delete.mutationOptions());
  const instances = choices.data?.data ?? [];
  const instanceName = (id: string) => instances.find((o) => o.id === id)?.name ?? id;

  return (
    <ResourceSection<CentralPoint>
      title="Central points"
      description="Named, stable entry points to the organization’s orchestrators: private to the organization or public. Names are unique in the organization."
      before={
        org.data &&
        belowPro(org.data.tier) && (
          <div
            role="note"
            aria-label="Tier required"
            className="mt-4 rounded-md border border-amber-200 bg-amber-50 px-4 py-3 text-sm dark:border-amber-900 dark:bg-amber-950"
          >
            <p className="font-medium text-amber-900 dark:text-amber-100">
              Central points need the pro tier or higher.
            </p>
            <p className="mt-1 text-amber-800 dark:text-amber-200">
              This organization is on the {org.data.tier} tier, so creating one is refused. A sys_admin can change its
              tier under{" "}
              <Link href={`/console/organizations/${orgId}`} className="font-medium underline">
                Profile → Subscription
              </Link>
              .
            </p>
          </div>
        )
      }
      query={list}
      columns={["Name", "Orchestrator", "Visibility", "Status", "Description"]}
      itemName={(p) => p.name}
      cells={(p) => (
        <>
          <th scope="row" className={`${td} text-left font-medium`}>
            {p.name}
          </th>
          <td className={td}>{instanceName(p.orchestrator_id)}</td>
          <td className={td}>
            <Badge tone={p.visibility === "public" ? "brand" : "neutral"}>{p.visibility}</Badge>
          </td>
          <td className={td}>
            <StatusBadge status={p.status} />
          </td>
          <td className={`${td} max-w-xs`}>{p.description ?? <span className={mutedText}>None</span>}</td>
        </>
      )}
      empty={{
        title: "No central points",
        body: "A central point gives one of the organization’s orchestrators a stable, named entry point.",
      }}
      create={{ label: "Create central point" }}
      editor={{
        title: (p) => (p ? `Edit central point “${p.name}”` : "Create central point"),
        form: (p, controls) => (
          <CentralPointForm
            orgId={orgId}
            point={p}
            instances={instances}
            instancesLoading={choices.isPending}
            controls={controls}
          />
        ),
      }}
      remove={{
        title: (p) => `Delete central point “${p.name}”?`,
        body: () => (
          <>Whatever calls this entry point stops reaching its orchestrator. The orchestrator itself stays.</>
        ),
        confirmLabel: "Delete central point",
        run: (p) => remove.mutateAsync({ org_id: orgId, central_point_id: p.id }),
        notice: (p) => `Central point “${p.name}” deleted.`,
      }}
      refresh={() => queryClient.invalidateQueries(trpc.centralPoints.pathFilter())}
    />
  );
}
