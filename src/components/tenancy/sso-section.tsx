"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SsoConnection } from "@/lib/schemas/sso";
import { SSO_START_PATH } from "@/lib/sso";
import { useTRPC } from "@/trpc/react";
import { Badge } from "@/components/ui/badge";
import { Dialog } from "@/components/ui/dialog";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { ResourceSection, useNotice } from "@/components/ui/resource-section";
import { SecretField } from "@/components/ui/secret-field";
import { Notice } from "@/components/ui/states";
import { mutedText, primaryButton } from "@/components/ui/styles";
import { td } from "@/components/ui/table";

// An organization's single sign-on: its identity providers (OIDC or SAML), the values to copy into
// each, a test round trip in a new tab, enforce. A test comes back here with whom the IdP vouched
// for (or why it failed): `result` says it.

const SsoConnectionForm = onDemand(() => import("./sso-connection-form").then((m) => m.SsoConnectionForm), {
  loading: () => <FormLoading />,
});

const PROTOCOL = { oidc: "OIDC", saml: "SAML" } as const;

/** What a test round trip came back with, read from this page's address by the page. */
export type SsoTestResult = { ok: true; email: string; subject: string } | { ok: false; message: string } | null;

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

export function SsoSection({ orgId, result }: { orgId: string; result: SsoTestResult }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.ssoConnections.list.queryOptions({ org_id: orgId }));
  const remove = useMutation(trpc.ssoConnections.delete.mutationOptions());
  const notice = useNotice();
  const [showing, setShowing] = useState<SsoConnection | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.ssoConnections.pathFilter());

  const test = (connection: SsoConnection) =>
    window.open(`${SSO_START_PATH}?connection_id=${connection.id}&test=1`, "_blank", "noopener");

  return (
    <>
      {result && (
        <Notice
          error={!result.ok}
          text={
            result.ok
              ? `Test passed: the identity provider signed in ${result.email || "someone without an email"} (subject ${result.subject}). Nobody was signed in here.`
              : `Test failed: ${result.message}`
          }
        />
      )}
      <ResourceSection<SsoConnection>
        title="Single sign-on"
        description="The organization's own identity providers. People with an email at a connection's verified domains choose “Sign in with SSO” on the sign-in page, and join at their first sign-in. With enforce on, console sessions not signed in through the connection no longer reach the organization (sys_admins keep access)."
        query={list}
        notice={notice}
        columns={["Connection", "Domains", "State"]}
        itemName={(c) => `${PROTOCOL[c.type]} ${c.issuer ?? c.idp_entity_id ?? c.id}`}
        actions={(connection, open) => [
          {
            label: "IdP values",
            ariaLabel: `Values for the identity provider of ${connection.domains.join(", ")}`,
            onClick: () => setShowing(connection),
          },
          {
            label: "Test connection",
            ariaLabel: `Test the connection for ${connection.domains.join(", ")}`,
            onClick: () => test(connection),
          },
          { label: "Edit", ariaLabel: `Edit the connection for ${connection.domains.join(", ")}`, onClick: open.edit },
          {
            label: "Remove",
            ariaLabel: `Remove the connection for ${connection.domains.join(", ")}`,
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
            <td className={`${td} break-all`}>{c.domains.join(", ")}</td>
            <td className={td}>
              <span className="flex flex-wrap gap-1">
                <Badge tone={c.enabled ? "good" : "neutral"}>{c.enabled ? "enabled" : "disabled"}</Badge>
                {c.enforce && <Badge tone="bad">enforced</Badge>}
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
              : "OpenID Connect: the issuer, client id and secret of an app made for svc. SAML: the IdP's metadata. You get the values to enter at the IdP once it is created.",
          form: (c, controls) => <SsoConnectionForm orgId={orgId} connection={c} controls={controls} />,
        }}
        remove={{
          title: (c) => `Remove the ${PROTOCOL[c.type]} connection for ${c.domains.join(", ")}?`,
          body: () => <>Nobody signs in through it any more. People who did keep their accounts and memberships.</>,
          confirmLabel: "Remove connection",
          pendingLabel: "Removing…",
          run: (c) => remove.mutateAsync({ org_id: orgId, connection_id: c.id }),
          notice: () => "Connection removed.",
        }}
        refresh={refresh}
      />
      <ServiceProviderValues connection={showing} onClose={() => setShowing(null)} />
    </>
  );
}
