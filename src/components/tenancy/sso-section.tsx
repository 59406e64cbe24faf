"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SsoConnection } from "@/lib/schemas/sso";
import { SSO_START_PATH } from "@/lib/sso";
import { useTRPC } from "@/trpc/react";
import { roleChoicesOptions } from "@/components/identity/queries";
import { Badge } from "@/components/ui/badge";
import { Dialog } from "@/components/ui/dialog";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { SecretField } from "@/components/ui/secret-field";
import { Notice } from "@/components/ui/states";
import { mutedText, primaryButton } from "@/components/ui/styles";
import { td } from "@/components/ui/table";

// An organization's single sign-on: its identity providers (OIDC or SAML), the values to enter at
// each, a test round trip in a new tab, enforce. A test comes back to this page with whom the IdP
// vouched for (or why it failed), which the page reads from its address into `testResult`.

const SsoConnectionForm = onDemand(() => import("./sso-connection-form").then((m) => m.SsoConnectionForm), {
  loading: () => <FormLoading />,
});

const PROTOCOL = { oidc: "OIDC", saml: "SAML" } as const;

/** What a test round trip came back with; null when the page was not reached from one. */
export type SsoTestResult =
  { ok: true; connectionId: string; email: string; subject: string } | { ok: false; message: string } | null;

/**
 * What the test says. A test does not hold the IdP's email against the connection's domains, but a
 * sign-in would: the notice says when one would be refused for it.
 */
function testNotice(result: NonNullable<SsoTestResult>, connections: readonly SsoConnection[]): string {
  if (!result.ok) return `The test failed: ${result.message}`;
  const said = `The identity provider signed in ${result.email || "someone without an email address"} (subject ${result.subject}). Nobody was signed in here.`;
  const tested = connections.find((connection) => connection.id === result.connectionId);
  if (!tested) return said;
  if (!result.email.includes("@"))
    return `${said} A sign-in would be refused: the identity provider sent no email address.`;
  const domain = result.email.slice(result.email.lastIndexOf("@") + 1).toLowerCase();
  return tested.domains.includes(domain)
    ? said
    : `${said} A sign-in would be refused: that address is at none of the connection's domains.`;
}

/** This app's values to enter at the identity provider, each with its copy button. */
function ServiceProviderValues({ connection, onClose }: { connection: SsoConnection | null; onClose: () => void }) {
  return (
    <Dialog
      open={connection !== null}
      onClose={onClose}
      title="Values for your identity provider"
      description="Enter these in the app you made for svc at your identity provider."
    >
      {connection && (
        <div className="space-y-4">
          {connection.redirect_uri && (
            <SecretField label="Redirect URI" value={connection.redirect_uri} copyLabel="Copy redirect URI" />
          )}
          {connection.sp_entity_id && (
            <SecretField label="Entity id (audience)" value={connection.sp_entity_id} copyLabel="Copy entity id" />
          )}
          {connection.acs_url && (
            <SecretField label="ACS URL (reply URL)" value={connection.acs_url} copyLabel="Copy ACS URL" />
          )}
          {connection.metadata_url && (
            <SecretField label="Metadata URL" value={connection.metadata_url} copyLabel="Copy metadata URL" />
          )}
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

export function SsoSection({ orgId, testResult }: { orgId: string; testResult: SsoTestResult }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.ssoConnections.list.queryOptions({ org_id: orgId }));
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const remove = useMutation(trpc.ssoConnections.delete.mutationOptions());
  const notice = useNotice();
  const [showing, setShowing] = useState<SsoConnection | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.ssoConnections.pathFilter());
  const roleName = (roleId: string) => roles.data?.data.find((role) => role.id === roleId)?.name ?? "—";
  const covering = (connection: SsoConnection) => connection.domains.join(", ");

  return (
    <ResourceSection<SsoConnection>
      title="Single sign-on"
      description="The organization's own identity providers. People with an email at a connection's verified domains choose “Sign in with SSO” on the sign-in page, and join at their first sign-in. With enforce on, console sessions not signed in through the connection no longer reach the organization (sys_admins keep access)."
      before={
        testResult && (
          <div className="mt-4">
            <Notice error={!testResult.ok} text={testNotice(testResult, list.data?.data ?? [])} />
          </div>
        )
      }
      query={list}
      notice={notice}
      columns={["Connection", "Domains", "Role on joining", "State"]}
      itemName={(c) => `${PROTOCOL[c.type]} ${c.issuer ?? c.idp_entity_id ?? c.id}`}
      actions={(connection, open) => [
        {
          label: "IdP values",
          ariaLabel: `Values for the identity provider of ${covering(connection)}`,
          onClick: () => setShowing(connection),
        },
        // The IdP of a disabled connection is not asked: the round trip would end nowhere useful.
        ...(connection.enabled
          ? [
              {
                label: "Test connection",
                ariaLabel: `Test the connection for ${covering(connection)}`,
                newTabHref: `${SSO_START_PATH}?${new URLSearchParams({ connection_id: connection.id, test: "1" })}`,
              },
            ]
          : []),
        { label: "Edit", ariaLabel: `Edit the connection for ${covering(connection)}`, onClick: open.edit },
        {
          label: "Remove",
          ariaLabel: `Remove the connection for ${covering(connection)}`,
          onClick: open.remove,
          danger: true,
        },
      ]}
      cells={(c) => (
        <>
          <th scope="row" className={`${td} text-left font-medium break-all`}>
            {PROTOCOL[c.type]}
            <span className={`block font-normal ${mutedText}`}>{c.issuer ?? c.idp_entity_id}</span>
          </th>
          <td className={`${td} break-all`}>{covering(c)}</td>
          <td className={td}>{roleName(c.default_role_id)}</td>
          <td className={td}>
            <span className="flex flex-wrap gap-1">
              <Badge tone={c.enabled ? "good" : "neutral"}>{c.enabled ? "enabled" : "disabled"}</Badge>
              {c.enforce && <Badge tone="warn">enforced</Badge>}
            </span>
          </td>
        </>
      )}
      empty={{
        title: "No connections",
        body: "Connect your organization’s identity provider (Okta, Entra ID, Google Workspace, Keycloak…) so its people sign in with it.",
      }}
      create={{ label: "Add connection" }}
      editor={{
        title: (c) => (c ? "Edit connection" : "Add connection"),
        description: (c) =>
          c
            ? "Blank fields keep what is stored."
            : "OpenID Connect: the issuer, client id and secret of an app made for svc. SAML: the IdP's metadata, or its three values. The values to enter at the IdP are shown once the connection is created.",
        form: (c, controls) => (
          <SsoConnectionForm orgId={orgId} connection={c} controls={controls} onCreated={setShowing} />
        ),
      }}
      remove={{
        title: (c) => `Remove the ${PROTOCOL[c.type]} connection for ${covering(c)}?`,
        body: () => <>Nobody signs in through it any more. People who did keep their accounts and memberships.</>,
        confirmLabel: "Remove connection",
        pendingLabel: "Removing…",
        run: (c) => remove.mutateAsync({ org_id: orgId, connection_id: c.id }),
        notice: () => "Connection removed.",
      }}
      refresh={refresh}
    >
      <ServiceProviderValues connection={showing} onClose={() => setShowing(null)} />
    </ResourceSection>
  );
}
