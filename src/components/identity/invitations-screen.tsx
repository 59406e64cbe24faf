"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Invitation, InvitationWithLink } from "@/lib/schemas/invitations";
import { organizationOptions } from "@/components/tenancy/queries";
import { Badge, type Tone } from "@/components/ui/badge";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { Fact, ShownOnceDialog } from "@/components/ui/secret-field";
import { mutedText } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { messageOf, useTRPC } from "@/trpc/react";
import { RoleBadges } from "./parts";
import { invitationListOptions } from "./queries";

// An organization's Invitations section: invite an address with org roles and an expiry, and follow
// each invitation (pending, accepted, revoked, expired) and its email. A link is shown once, when it
// is made: on inviting, on "Copy link" (a new link) and on "Resend" without a mail server. A new
// link always ends the previous one.

const InviteForm = onDemand(() => import("./invite-form").then((m) => m.InviteForm), {
  loading: () => <FormLoading />,
});

const STATUS_TONE: Record<Invitation["status"], Tone> = {
  pending: "brand",
  accepted: "good",
  revoked: "neutral",
  expired: "warn",
};
const DELIVERY: Record<Invitation["delivery"], string> = {
  queued: "Sending",
  sent: "Sent",
  failed: "Failed",
  not_configured: "Not emailed",
};

/** The new link to copy, and whether the email carries it too. */
function LinkDialog({ invitation, onClose }: { invitation: InvitationWithLink | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      secret={invitation?.accept_url ?? null}
      title={invitation ? `Invitation link for ${invitation.email}` : "Invitation link"}
      label="Invitation link"
      noun="link"
      onClose={onClose}
      facts={
        invitation && (
          <>
            <Fact term="Email">
              {invitation.delivery === "not_configured"
                ? "Not sent: this platform has no mail server. Send the link yourself."
                : `On its way to ${invitation.email}, with the same link.`}
            </Fact>
            <Fact term="Expires">{new Date(invitation.expires_at).toLocaleString()}</Fact>
          </>
        )
      }
    >
      <p className={`text-sm ${mutedText}`}>
        Whoever opens it can join only with the address {invitation?.email}. Any earlier link to this invitation no
        longer works.
      </p>
    </ShownOnceDialog>
  );
}

export function InvitationsScreen({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useQuery(organizationOptions(trpc, orgId));
  const list = useInfiniteQuery({ ...invitationListOptions(trpc, orgId), placeholderData: keepPreviousData });
  const resend = useMutation(trpc.invitations.resend.mutationOptions());
  const revoke = useMutation(trpc.invitations.revoke.mutationOptions());
  const notice = useNotice();
  const [link, setLink] = useState<InvitationWithLink | null>(null);
  const orgName = org.data?.name ?? "this organization";
  const refresh = () => queryClient.invalidateQueries(trpc.invitations.pathFilter());

  /** A new link for `invitation`: shown to copy, or (`show` false, with email) said to be sent. */
  async function renew(invitation: Invitation, show: boolean) {
    try {
      const renewed = await resend.mutateAsync({ org_id: orgId, invitation_id: invitation.id, expires_in_days: 7 });
      if (show || renewed.delivery === "not_configured") setLink(renewed);
      else notice.say(`A new link is on its way to ${renewed.email}; the previous one no longer works.`);
    } catch (error) {
      notice.fail(messageOf(error));
    }
    await refresh();
  }

  return (
    <ResourceSection<Invitation>
      title="Invitations"
      description="Invite people by email address: they join with the org roles you choose when they open the link, signed in or with a new account. Links last up to 30 days; resending makes a new link and ends the old one."
      notice={notice}
      query={list}
      caption={`Invitations of ${orgName}`}
      columns={["Email", "Org roles", "Status", "Email delivery", "Expires"]}
      itemName={(invitation) => invitation.email}
      actions={(invitation, open) =>
        invitation.status === "pending"
          ? [
              {
                label: "Resend",
                ariaLabel: `Resend the invitation of ${invitation.email}`,
                onClick: () => void renew(invitation, false),
              },
              {
                label: "Copy link",
                ariaLabel: `Copy a new link for ${invitation.email}`,
                onClick: () => void renew(invitation, true),
              },
              {
                label: "Revoke",
                ariaLabel: `Revoke the invitation of ${invitation.email}`,
                onClick: open.remove,
                danger: true,
              },
            ]
          : []
      }
      cells={(invitation) => (
        <>
          <th scope="row" className={`${td} text-left font-medium break-all`}>
            {invitation.email}
          </th>
          <td className={td}>
            <RoleBadges roles={invitation.roles} />
          </td>
          <td className={td}>
            <Badge tone={STATUS_TONE[invitation.status]}>{invitation.status}</Badge>
          </td>
          <td className={`${td} ${invitation.delivery === "failed" ? "text-red-700 dark:text-red-400" : ""}`}>
            {DELIVERY[invitation.delivery]}
          </td>
          <WhenCell iso={invitation.status === "pending" ? invitation.expires_at : null} none="—" />
        </>
      )}
      empty={{
        title: `No one has been invited to ${orgName} yet.`,
        body: "Invite people by email: they choose a password and join with the roles you pick.",
      }}
      create={{ label: "Invite people" }}
      editor={{
        createOnly: true,
        title: () => `Invite someone to ${orgName}`,
        description: () =>
          "They receive a link by email when a mail server is set up; you also get the link once, to send yourself.",
        form: (_none, controls) => (
          <InviteForm
            orgId={orgId}
            onCancel={controls.cancel}
            onInvited={(invitation) => {
              controls.done(`${invitation.email} is invited.`);
              setLink(invitation);
            }}
          />
        ),
      }}
      remove={{
        title: (invitation) => `Revoke the invitation of ${invitation.email}?`,
        body: () => <>Its link stops working at once. You can invite the address again afterwards.</>,
        confirmLabel: "Revoke invitation",
        pendingLabel: "Revoking…",
        run: (invitation) => revoke.mutateAsync({ org_id: orgId, invitation_id: invitation.id }),
        notice: (invitation) => `The invitation of ${invitation.email} is revoked.`,
      }}
      refresh={refresh}
    >
      <LinkDialog invitation={link} onClose={() => setLink(null)} />
    </ResourceSection>
  );
}
