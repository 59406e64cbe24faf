"use client";

import { useQuery } from "@tanstack/react-query";
import { Choice, ChoiceGroup, TextAreaField } from "@/components/ui/fields";
import { mutedText } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";

// A key's restrictions, in the create and edit dialogs alike: the organizations it may act in
// (picked among its owner's) and the networks it may be used from (CIDRs typed one a line).

export interface RestrictionValues {
  allowed_org_ids: string[];
  /** CIDRs, separated by new lines, spaces or commas. */
  allowed_cidrs: string;
}

/** The typed CIDRs as a list, or null for none (any address). */
function cidrsOf(text: string): string[] | null {
  const cidrs = text.split(/[\s,]+/).filter((s) => s !== "");
  return cidrs.length > 0 ? cidrs : null;
}

export const restrictionValues = (
  key: { allowed_org_ids: string[] | null; allowed_cidrs: string[] | null } | null,
): RestrictionValues => ({
  allowed_org_ids: key?.allowed_org_ids ?? [],
  allowed_cidrs: (key?.allowed_cidrs ?? []).join("\n"),
});

export function restrictionInput(values: RestrictionValues) {
  // react-hook-form reports a lone unticked checkbox as false rather than an empty list.
  const orgs: unknown = values.allowed_org_ids;
  const picked = Array.isArray(orgs) ? orgs.filter((o): o is string => typeof o === "string") : [];
  return { allowed_org_ids: picked.length > 0 ? picked : null, allowed_cidrs: cidrsOf(values.allowed_cidrs) };
}

export function RestrictionFields({ ownerId }: { ownerId: string }) {
  const trpc = useTRPC();
  const organizations = useQuery(trpc.users.organizations.queryOptions({ user_id: ownerId, limit: 100 }));
  const orgs = organizations.data?.data ?? [];
  return (
    <>
      <ChoiceGroup
        legend="Organizations (optional)"
        name="allowed_org_ids"
        subject="Organizations"
        hint="None ticked: every organization the owner belongs to. Ticked: only those; elsewhere the key acts as if its owner were not a member."
        className="mt-2 flex flex-col gap-2"
      >
        {organizations.isPending && <p className={`text-sm ${mutedText}`}>Loading organizations…</p>}
        {!organizations.isPending && orgs.length === 0 && (
          <p className={`text-sm ${mutedText}`}>The owner belongs to no organization.</p>
        )}
        {orgs.map((org) => (
          <Choice
            key={org.org_id}
            type="checkbox"
            name="allowed_org_ids"
            value={org.org_id}
            label={org.display_name ?? org.name}
          />
        ))}
      </ChoiceGroup>
      <TextAreaField
        name="allowed_cidrs"
        label="Networks (optional)"
        mono
        rows={3}
        placeholder={"203.0.113.0/24\n2001:db8::/32"}
        hint="IPv4 or IPv6 CIDRs, one a line. Empty: any address. From elsewhere the key is refused (403 ip_not_allowed)."
      />
    </>
  );
}
