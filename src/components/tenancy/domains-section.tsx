"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Domain } from "@/lib/schemas/domains";
import { useTRPC } from "@/trpc/react";
import { Badge, type Tone } from "@/components/ui/badge";
import { Dialog } from "@/components/ui/dialog";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { SecretField } from "@/components/ui/secret-field";
import { mutedText, primaryButton } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// An organization's domains: add one, copy the TXT record to publish, verify it, remove it. A
// verified domain lets people with a verified email there join (membership.domain_policy).

const DomainForm = onDemand(() => import("./domain-form").then((m) => m.DomainForm), {
  loading: () => <FormLoading />,
});

const STATUS_TONE: Record<Domain["status"], Tone> = { pending: "neutral", verified: "good", failed: "bad" };

function TxtRecordDialog({ domain, onClose }: { domain: Domain | null; onClose: () => void }) {
  return (
    <Dialog
      open={domain !== null}
      onClose={onClose}
      title={domain ? `TXT record for ${domain.domain}` : "TXT record"}
      description="Publish this record at your DNS provider, then choose Verify. It must stay published: a verified domain whose record is missing for 7 days fails."
    >
      {domain && (
        <div className="space-y-4">
          <SecretField label="Name" value={domain.txt_name} copyLabel="Copy name" />
          <SecretField label="Value" value={domain.txt_value} copyLabel="Copy value" />
          <div className="flex justify-end">
            <button type="button" onClick={onClose} className={primaryButton}>
              Done
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

export function DomainsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.domains.list.queryOptions({ org_id: orgId }));
  const verify = useMutation(trpc.domains.verify.mutationOptions());
  const remove = useMutation(trpc.domains.delete.mutationOptions());
  const notice = useNotice();
  const [showing, setShowing] = useState<Domain | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.domains.pathFilter());

  async function check(domain: Domain) {
    try {
      const result = await verify.mutateAsync({ org_id: orgId, domain_id: domain.id });
      if (result.status === "verified") notice.say(`${result.domain} is verified.`);
      else
        notice.fail(`${result.domain} is still ${result.status}: ${result.last_error ?? "the record was not found."}`);
    } catch (error) {
      notice.fail((error as Error).message);
    }
    await refresh();
  }

  return (
    <>
      <ResourceSection<Domain>
        title="Domains"
        description="Prove the organization holds a domain with a DNS TXT record. With the setting membership.domain_policy set to auto_join, people whose verified email is at a verified domain join at sign-in, with the role membership.domain_role_id names (org_member by default)."
        query={list}
        notice={notice}
        columns={["Domain", "Status", "Last checked"]}
        itemName={(d) => d.domain}
        actions={(domain, open) => [
          { label: "TXT record", ariaLabel: `TXT record for ${domain.domain}`, onClick: () => setShowing(domain) },
          { label: "Verify", ariaLabel: `Verify ${domain.domain}`, onClick: () => void check(domain) },
          { label: "Remove", ariaLabel: `Remove ${domain.domain}`, onClick: open.remove, danger: true },
        ]}
        cells={(d) => (
          <>
            <th scope="row" className={`${td} text-left font-medium break-all`}>
              {d.domain}
              {d.last_error && d.status !== "verified" && (
                <span className={`block font-normal ${mutedText}`}>{d.last_error}</span>
              )}
            </th>
            <td className={td}>
              <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
            </td>
            {d.last_checked_at ? <WhenCell iso={d.last_checked_at} /> : <td className={`${td} ${mutedText}`}>Never</td>}
          </>
        )}
        empty={{
          title: "No domains",
          body: "Add the domain of your organization’s email addresses to let colleagues join by it.",
        }}
        create={{ label: "Add domain" }}
        editor={{
          createOnly: true,
          title: () => "Add domain",
          description: () => "You get a TXT record to publish; the domain is verified once the record is found.",
          form: (_, controls) => <DomainForm orgId={orgId} controls={controls} onAdded={setShowing} />,
        }}
        remove={{
          title: (d) => `Remove the domain ${d.domain}?`,
          body: () => <>Nobody joins by it any more. Members who joined by it stay.</>,
          confirmLabel: "Remove domain",
          pendingLabel: "Removing…",
          run: (d) => remove.mutateAsync({ org_id: orgId, domain_id: d.id }),
          notice: (d) => `Domain ${d.domain} removed.`,
        }}
        refresh={refresh}
      />
      <TxtRecordDialog domain={showing} onClose={() => setShowing(null)} />
    </>
  );
}
