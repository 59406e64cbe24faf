"use client";

import {
  CLIENT_TYPES,
  clientShapeProblems,
  createOAuthClientInput,
  GRANT_TYPES,
  updateOAuthClientInput,
  type CreateOAuthClientInput,
  type OAuthClient,
  type OAuthClientWithSecret,
  type UpdateOAuthClientInput,
} from "@/lib/schemas/oauth-clients";
import { useTRPCClient } from "@/trpc/react";
import { PermissionPicker } from "./permission-picker";
import { CheckboxField, CheckboxGroup, RadioGroup, TextAreaField, TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { Fact, ShownOnceDialog } from "@/components/ui/secret-field";
import { Code } from "@/components/ui/values";

// Registering and editing an OAuth client, checked with the schema the server enforces (redirect
// URIs absolute https — http only to a loopback host — without fragments; grant types that fit
// the client type), with each problem next to its field; and the secret of a confidential client,
// shown once after registering or rotating.

const GRANT_LABELS: Record<(typeof GRANT_TYPES)[number], string> = {
  authorization_code: "Authorization code",
  client_credentials: "Client credentials",
  refresh_token: "Refresh token",
};

/** One URI a line; blank lines are ignored. */
const CLIENT_TYPE_CHOICES = [
  { value: "confidential", label: "Confidential (a server that keeps a secret)" },
  { value: "public", label: "Public (a browser or mobile app, no secret)" },
];

const urisOf = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

interface ClientValues {
  name: string;
  client_type: (typeof CLIENT_TYPES)[number];
  is_first_party: boolean;
  redirect_uris: string;
  allowed_grant_types: string[];
  allowed_scopes: string[];
}

/** Registers a client, or edits one (its type is fixed). */
export function ClientForm({
  client,
  onCancel,
  onRegistered,
  onSaved,
}: {
  client: OAuthClient | null;
  onCancel: () => void;
  onRegistered: (client: OAuthClientWithSecret) => void;
  onSaved: (client: OAuthClient) => void;
}) {
  const trpcClient = useTRPCClient();
  const form = useSchemaForm<ClientValues, CreateOAuthClientInput | UpdateOAuthClientInput>({
    schema: client === null ? createOAuthClientInput : updateOAuthClientInput,
    defaultValues: {
      name: client?.name ?? "",
      client_type: client?.client_type ?? "confidential",
      is_first_party: client?.is_first_party ?? false,
      redirect_uris: (client?.redirect_uris ?? []).join("\n"),
      allowed_grant_types: client?.allowed_grant_types ?? ["authorization_code"],
      allowed_scopes: client?.allowed_scopes ?? [],
    },
    toInput: ({ client_type, redirect_uris, allowed_grant_types, ...values }, problem) => {
      const input = {
        ...values,
        redirect_uris: urisOf(redirect_uris),
        allowed_grant_types: GRANT_TYPES.filter((g) => allowed_grant_types.includes(g)),
      };
      if (client === null) return { ...input, client_type };
      // The rules across fields hold for the result of an update too.
      for (const { path, message } of clientShapeProblems({ ...input, client_type: client.client_type }))
        problem(path as keyof ClientValues, message);
      return input;
    },
    submit: async (input) =>
      client === null
        ? onRegistered(await trpcClient.oauthClients.register.mutate(input as CreateOAuthClientInput))
        : onSaved(await trpcClient.oauthClients.update.mutate({ client_id: client.client_id, ...input })),
  });
  // An error on `redirect_uris.1` names the second URI: "Redirect URI 2 (http://…) must use https".
  const uris = urisOf(form.watch("redirect_uris"));
  const uriLabel = ([index]: string[]) =>
    `Redirect URI ${Number(index) + 1}${uris[Number(index)] ? ` (${uris[Number(index)]})` : ""}`;

  return (
    <Form form={form} className="space-y-6">
      <TextField name="name" label="Name" autoFocus autoComplete="off" hint="Shown to users on consent screens." />
      {client === null ? (
        <RadioGroup
          name="client_type"
          legend="Client type"
          hint="Fixed once registered."
          options={CLIENT_TYPE_CHOICES}
        />
      ) : (
        <p className="text-sm">
          Client type: <strong className="font-semibold">{client.client_type}</strong>{" "}
          <span className="text-slate-500 dark:text-slate-400">(fixed once registered)</span>
        </p>
      )}
      <CheckboxField name="is_first_party" label="First party (one of the platform's own apps)" />
      <TextAreaField
        name="redirect_uris"
        label="Redirect URIs"
        labelFor={uriLabel}
        rows={3}
        spellCheck={false}
        hint="One a line. Absolute https URIs (http only for localhost, 127.x.x.x or [::1]), without a fragment."
      />
      <CheckboxGroup
        name="allowed_grant_types"
        legend="Grant types"
        subject="Grant types"
        hint="Authorization code needs a redirect URI; refresh token goes with authorization code; client credentials need a secret."
        options={GRANT_TYPES.map((grant) => ({ value: grant, label: GRANT_LABELS[grant] }))}
      />
      <PermissionPicker
        name="allowed_scopes"
        legend="Allowed scopes"
        hint="Catalog permissions the client may ask for."
        noun="scope"
      />
      <DialogButtons onCancel={onCancel} label={client === null ? "Register client" : "Save client"} />
    </Form>
  );
}

/** The secret of a confidential client, right after registering it or rotating its secret. */
export function ClientSecretDialog({ client, onClose }: { client: OAuthClientWithSecret | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      secret={client?.client_secret ?? null}
      title="Copy the client secret"
      label="Client secret"
      noun="secret"
      what="client secret"
      onClose={onClose}
      facts={
        client && (
          <>
            <Fact term="Client">{client.name}</Fact>
            <Fact term="Client ID">
              <Code>{client.client_id}</Code>
            </Fact>
          </>
        )
      }
    />
  );
}
