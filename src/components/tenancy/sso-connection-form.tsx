"use client";

import { useQuery } from "@tanstack/react-query";
import { useWatch } from "react-hook-form";
import {
  createSsoConnectionInput,
  updateSsoConnectionInput,
  type CreateSsoConnectionInput,
  type SsoConnection,
  type UpdateSsoConnectionInput,
} from "@/lib/schemas/sso";
import { DEFAULT_OIDC_SCOPES, SSO_TYPES } from "@/lib/sso";
import {
  CheckboxField,
  CheckboxGroup,
  optionsOf,
  RadioGroup,
  SelectField,
  TextAreaField,
  TextField,
} from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { checkedValues } from "@/components/ui/form-values";
import { roleChoicesOptions } from "@/components/identity/queries";
import type { EditorControls } from "@/components/ui/resource-section";
import { useTRPC, useTRPCClient } from "@/trpc/react";

// Making or changing an SSO connection (./sso-section.tsx): the IdP's values for its protocol, the
// verified domains it covers, the role people join with, and enforce. Blank fields are left out:
// on an edit they keep what is stored (a secret is never shown, only replaced).

interface Values {
  type: (typeof SSO_TYPES)[number];
  domains: string[];
  default_role_id: string;
  enforce: boolean;
  enabled: boolean;
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  idp_metadata_xml: string;
  idp_entity_id: string;
  idp_sso_url: string;
  idp_certificate: string;
  allow_idp_initiated: boolean;
}

const TYPE_LABELS = { oidc: "OpenID Connect", saml: "SAML 2.0" };

function valuesOf(connection: SsoConnection | null): Values {
  return {
    type: connection?.type ?? "oidc",
    domains: connection?.domains ?? [],
    default_role_id: connection?.default_role_id ?? "",
    enforce: connection?.enforce ?? false,
    enabled: connection?.enabled ?? true,
    issuer: connection?.issuer ?? "",
    client_id: connection?.client_id ?? "",
    client_secret: "",
    scopes: (connection?.scopes.length ? connection.scopes : DEFAULT_OIDC_SCOPES).join(" "),
    idp_metadata_xml: "",
    idp_entity_id: connection?.idp_entity_id ?? "",
    idp_sso_url: connection?.idp_sso_url ?? "",
    idp_certificate: "",
    allow_idp_initiated: connection?.allow_idp_initiated ?? false,
  };
}

/** The fields of the chosen protocol that were filled in, as the API takes them. */
function protocolInput(values: Values) {
  const given = (value: string) => (value.trim() === "" ? undefined : value.trim());
  if (values.type === "oidc")
    return {
      issuer: given(values.issuer),
      client_id: given(values.client_id),
      client_secret: values.client_secret === "" ? undefined : values.client_secret,
      scopes: values.scopes.split(/\s+/).filter(Boolean),
    };
  const metadata = given(values.idp_metadata_xml);
  return {
    // Pasted metadata carries the three values; otherwise they are given one by one.
    ...(metadata
      ? { idp_metadata_xml: metadata }
      : {
          idp_entity_id: given(values.idp_entity_id),
          idp_sso_url: given(values.idp_sso_url),
          idp_certificates: given(values.idp_certificate) ? [values.idp_certificate.trim()] : undefined,
        }),
    allow_idp_initiated: values.allow_idp_initiated,
  };
}

export function SsoConnectionForm({
  orgId,
  connection,
  controls,
}: {
  orgId: string;
  connection: SsoConnection | null;
  controls: EditorControls;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const domains = useQuery(trpc.domains.list.queryOptions({ org_id: orgId, status: "verified", limit: 100 }));
  const form = useSchemaForm<Values, Record<string, unknown>>({
    schema: connection ? updateSsoConnectionInput : createSsoConnectionInput,
    defaultValues: valuesOf(connection),
    toInput: (values) => ({
      ...(connection ? {} : { type: values.type }),
      domains: checkedValues(values.domains),
      ...(values.default_role_id ? { default_role_id: values.default_role_id } : {}),
      enforce: values.enforce,
      enabled: values.enabled,
      ...protocolInput(values),
    }),
    submit: async (input) => {
      if (connection) {
        await client.ssoConnections.update.mutate({
          ...(input as UpdateSsoConnectionInput),
          org_id: orgId,
          connection_id: connection.id,
        });
        controls.done("Connection saved.");
      } else {
        const created = await client.ssoConnections.create.mutate({
          ...(input as CreateSsoConnectionInput),
          org_id: orgId,
        });
        controls.done(
          created.type === "oidc"
            ? "Connection created: register its redirect URI at your identity provider, then test it."
            : "Connection created: give your identity provider its entity id and ACS URL, then test it.",
        );
      }
    },
  });
  const type = useWatch({ control: form.control, name: "type" });
  const verified = domains.data?.data ?? [];

  return (
    <Form form={form} className="space-y-5">
      {connection ? (
        <p className="text-sm">Protocol: {TYPE_LABELS[connection.type]}</p>
      ) : (
        <RadioGroup
          name="type"
          legend="Protocol"
          options={optionsOf(SSO_TYPES, TYPE_LABELS)}
          className="mt-2 flex gap-4"
        />
      )}
      {type === "oidc" ? (
        <>
          <TextField
            name="issuer"
            label="Issuer"
            mono
            autoComplete="off"
            hint="Such as https://acme.okta.com — svc reads its discovery document."
          />
          <TextField name="client_id" label="Client id" mono autoComplete="off" />
          <TextField
            name="client_secret"
            label={connection ? "New client secret" : "Client secret"}
            type="password"
            autoComplete="new-password"
            hint={connection ? "Leave blank to keep the stored one." : "Stored encrypted; never shown again."}
          />
          <TextField name="scopes" label="Scopes" mono hint="Separated by spaces; must include openid." />
        </>
      ) : (
        <>
          <TextAreaField
            name="idp_metadata_xml"
            label={connection ? "New IdP metadata XML" : "IdP metadata XML"}
            mono
            rows={5}
            hint="Paste the metadata downloaded from your identity provider, or give the three values below instead."
          />
          <TextField name="idp_entity_id" label="IdP entity id" mono autoComplete="off" />
          <TextField
            name="idp_sso_url"
            label="IdP sign-on URL"
            mono
            autoComplete="off"
            hint="Its HTTP-Redirect single sign-on URL."
          />
          <TextAreaField
            name="idp_certificate"
            label="IdP signing certificate"
            mono
            rows={3}
            hint={connection ? "PEM. Leave blank to keep the stored ones." : "PEM."}
          />
          <CheckboxField
            name="allow_idp_initiated"
            label="Allow sign-in started at the identity provider"
            hint="Off unless people start from the IdP's dashboard: such answers cannot be tied to the browser that brings them."
          />
        </>
      )}
      <CheckboxGroup
        name="domains"
        legend="Domains"
        hint={
          domains.isPending
            ? "Loading verified domains…"
            : verified.length === 0
              ? "No verified domains yet: verify one under Settings › Domains first."
              : "People with an email at these verified domains sign in here."
        }
        options={verified.map((d) => ({ value: d.domain, label: d.domain }))}
        className="mt-2 grid gap-2"
      />
      <SelectField
        name="default_role_id"
        label="Role on joining"
        options={[
          { value: "", label: "org_member (default)" },
          ...(roles.data?.data ?? [])
            .filter((r) => r.name !== "org_member")
            .map((r) => ({ value: r.id, label: r.name })),
        ]}
        hint="The org role people get at their first sign-in. Changing it later changes nobody's roles."
      />
      <CheckboxField name="enabled" label="Enabled" />
      <CheckboxField
        name="enforce"
        label="Enforce"
        hint="Console sessions not signed in through this connection lose access to the organization at once (sys_admins keep it). Turn it on from a session signed in through it."
      />
      <DialogButtons
        onCancel={controls.cancel}
        label={connection ? "Save connection" : "Create connection"}
        pendingLabel={connection ? "Saving…" : "Creating…"}
      />
    </Form>
  );
}
