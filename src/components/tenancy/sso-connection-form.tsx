"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
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
import { textLink } from "@/components/ui/styles";
import { useTRPC, useTRPCClient } from "@/trpc/react";

// Making or changing an SSO connection (./sso-section.tsx): the IdP's values for its protocol, the
// verified domains it covers, the role people join with, and enforce. Blank fields are left out:
// on an edit they keep what is stored (a secret is never shown, only replaced).

/** The form's fields, named as the API's so that its field errors land on them. */
interface Values {
  type: (typeof SSO_TYPES)[number];
  domains: string[];
  default_role_id: string;
  enforce: boolean;
  enabled: boolean;
  issuer: string;
  client_id: string;
  client_secret: string;
  /** Separated by spaces. */
  scopes: string;
  idp_metadata_xml: string;
  idp_entity_id: string;
  idp_sso_url: string;
  /** One PEM certificate; the API takes a list. */
  idp_certificates: string;
  allow_idp_initiated: boolean;
}

const TYPE_LABELS = { oidc: "OpenID Connect", saml: "SAML 2.0" };
/** An organization has a handful of domains; the first 100 verified ones are plenty to choose from. */
const DOMAIN_CHOICES = 100;

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
    idp_certificates: "",
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
  const certificate = given(values.idp_certificates);
  return {
    // Pasted metadata carries the three values; otherwise they are given one by one.
    ...(metadata
      ? { idp_metadata_xml: metadata }
      : {
          idp_entity_id: given(values.idp_entity_id),
          idp_sso_url: given(values.idp_sso_url),
          idp_certificates: certificate ? [certificate] : undefined,
        }),
    allow_idp_initiated: values.allow_idp_initiated,
  };
}

export function SsoConnectionForm({
  orgId,
  connection,
  controls,
  onCreated,
}: {
  orgId: string;
  connection: SsoConnection | null;
  controls: EditorControls;
  /** A new connection: its values to enter at the IdP are shown next. */
  onCreated: (connection: SsoConnection) => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const domains = useQuery(
    trpc.domains.list.queryOptions({ org_id: orgId, status: "verified", limit: DOMAIN_CHOICES }),
  );
  const form = useSchemaForm<Values, CreateSsoConnectionInput | UpdateSsoConnectionInput>({
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
        return;
      }
      const created = await client.ssoConnections.create.mutate({
        ...(input as CreateSsoConnectionInput),
        org_id: orgId,
      });
      controls.done(
        created.type === "oidc"
          ? "Connection created: register its redirect URI at your identity provider, then test it."
          : "Connection created: give your identity provider its entity id and ACS URL, then test it.",
      );
      onCreated(created);
    },
  });
  const type = useWatch({ control: form.control, name: "type" });
  const enforce = useWatch({ control: form.control, name: "enforce" });
  // A domain the connection covers stays listed (to be unchecked) after it stops being verified.
  const domainChoices = [
    ...new Set([...(domains.data?.data ?? []).map((d) => d.domain), ...(connection?.domains ?? [])]),
  ];
  const orgRoles = roles.data?.data ?? [];

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
            name="idp_certificates"
            label={connection ? "New IdP signing certificate" : "IdP signing certificate"}
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
          domains.isPending ? (
            "Loading verified domains…"
          ) : domainChoices.length === 0 ? (
            <>
              The organization has no verified domain yet.{" "}
              <Link href={`/console/organizations/${orgId}/settings`} className={textLink}>
                Verify one in its settings
              </Link>
              , then come back.
            </>
          ) : (
            "People with an email at these verified domains sign in here."
          )
        }
        options={domainChoices.map((domain) => ({ value: domain, label: domain }))}
        className="mt-2 grid gap-2"
      />
      {roles.isPending ? (
        <p className="text-sm">Loading roles…</p>
      ) : (
        <SelectField
          name="default_role_id"
          label="Role on joining"
          // A new connection leaves the role to the server's default, org_member.
          options={[
            ...(connection ? [] : [{ value: "", label: "org_member (default)" }]),
            ...orgRoles
              .filter((role) => connection || role.name !== "org_member")
              .map((role) => ({ value: role.id, label: role.name })),
          ]}
          hint="The org role people get at their first sign-in. Changing it later changes nobody's roles."
        />
      )}
      <CheckboxField name="enabled" label="Enabled" />
      <CheckboxField
        name="enforce"
        label="Enforce"
        hint="Only console sessions signed in through this connection reach the organization (sys_admins keep access)."
      />
      {enforce && !connection?.enforce && (
        <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
          Once saved, every console session of the organization&apos;s people that was not signed in through this
          connection loses access to the organization at once, password sessions included.
        </p>
      )}
      <DialogButtons
        onCancel={controls.cancel}
        label={connection ? "Save connection" : "Create connection"}
        pendingLabel={connection ? "Saving…" : "Creating…"}
      />
    </Form>
  );
}
