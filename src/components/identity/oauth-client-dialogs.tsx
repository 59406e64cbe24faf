"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import {
  clientShapeProblems,
  createOAuthClientInput,
  GRANT_TYPES,
  updateOAuthClientInput,
  type OAuthClient,
  type OAuthClientWithSecret,
} from "@/lib/schemas/oauth-clients";
import { Dialog } from "@/components/ui/dialog";
import { primaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { PermissionPicker } from "./permission-picker";
import { Choice, ChoiceGroup, DialogButtons, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import { type FormErrors, sentence } from "@/components/ui/form-errors";
import { SecretField, ShownOnceWarning } from "@/components/ui/secret-field";
import { FormAlert } from "@/components/ui/states";
import { Code } from "@/components/ui/values";

// Registering and editing an OAuth client, checked with the schema the server enforces (redirect
// URIs absolute https — http only to a loopback host — without fragments; grant types that fit
// the client type), with each problem next to its field; and the secret of a confidential client,
// shown once after registering or rotating.

const LABELS = {
  name: "Name",
  client_type: "Client type",
  is_first_party: "First party",
  redirect_uris: "Redirect URIs",
  allowed_grant_types: "Grant types",
  allowed_scopes: "Allowed scopes",
};
type Field = keyof typeof LABELS;

const GRANT_LABELS: Record<(typeof GRANT_TYPES)[number], string> = {
  authorization_code: "Authorization code",
  client_credentials: "Client credentials",
  refresh_token: "Refresh token",
};

/** One URI a line; blank lines are ignored. */
const urisOf = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

interface ClientDialogProps {
  /** "register", or the client to edit; null keeps the dialog closed. */
  subject: "register" | OAuthClient | null;
  onClose: () => void;
  onRegistered: (client: OAuthClientWithSecret) => void;
  onSaved: (client: OAuthClient) => void;
}

export function OAuthClientDialog({ subject, onClose, onRegistered, onSaved }: ClientDialogProps) {
  const title = subject === "register" || subject === null ? "Register OAuth client" : `Edit ${subject.name}`;
  return (
    <Dialog open={subject !== null} onClose={onClose} title={title} description={subject === "register" ? "A confidential client gets a secret, shown once." : undefined}>
      {subject !== null && <ClientForm client={subject === "register" ? null : subject} onCancel={onClose} onRegistered={onRegistered} onSaved={onSaved} />}
    </Dialog>
  );
}

function ClientForm({ client, onCancel, onRegistered, onSaved }: { client: OAuthClient | null; onCancel: () => void; onRegistered: ClientDialogProps["onRegistered"]; onSaved: ClientDialogProps["onSaved"] }) {
  const trpc = useTRPC();
  const [name, setName] = useState(client?.name ?? "");
  const [clientType, setClientType] = useState<"public" | "confidential">(client?.client_type ?? "confidential");
  const [firstParty, setFirstParty] = useState(client?.is_first_party ?? false);
  const [uris, setUris] = useState((client?.redirect_uris ?? []).join("\n"));
  const [grantTypes, setGrantTypes] = useState<Set<string>>(() => new Set(client?.allowed_grant_types ?? ["authorization_code"]));
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(client?.allowed_scopes ?? []));
  const formRef = useRef<HTMLFormElement>(null);
  // An error on `redirect_uris.1` names the second URI: "Redirect URI 2 (http://…) must use https".
  const form = useFormErrors(LABELS, formRef, (field, rest) => {
    if (field !== "redirect_uris" || rest[0] === undefined) return LABELS[field];
    const index = Number(rest[0]);
    const uri = urisOf(uris)[index];
    return `Redirect URI ${index + 1}${uri ? ` (${uri})` : ""}`;
  });

  const register = useMutation(trpc.oauthClients.register.mutationOptions({ onSuccess: onRegistered, onError: form.fromServer }));
  const update = useMutation(trpc.oauthClients.update.mutationOptions({ onSuccess: onSaved, onError: form.fromServer }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const values = {
      name,
      is_first_party: firstParty,
      redirect_uris: urisOf(uris),
      allowed_grant_types: GRANT_TYPES.filter((g) => grantTypes.has(g)),
      allowed_scopes: [...scopes],
    };
    if (client === null) {
      const input = form.check(createOAuthClientInput, { ...values, client_type: clientType });
      if (input) register.mutate(input);
      return;
    }
    // The rules across fields hold for the result of an update too.
    const found: FormErrors<Field> = {};
    for (const { path, message } of clientShapeProblems({ ...values, client_type: client.client_type })) found[path as Field] ??= sentence(LABELS[path as Field], message);
    const input = form.check(updateOAuthClientInput, values, found);
    if (input) update.mutate({ client_id: client.client_id, ...input });
  }

  const toggleGrant = (grant: string, on: boolean) =>
    setGrantTypes((current) => {
      const next = new Set(current);
      if (on) next.add(grant);
      else next.delete(grant);
      return next;
    });

  const pending = register.isPending || update.isPending;

  return (
    <form ref={formRef} noValidate onSubmit={submit} className="space-y-6">
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} autoFocus autoComplete="off" hint="Shown to users on consent screens." error={form.errors.name} />
      {client === null ? (
        <ChoiceGroup legend="Client type" hint="Fixed once registered." error={form.errors.client_type}>
          <Choice type="radio" name="client-type" label="Confidential (a server that keeps a secret)" checked={clientType === "confidential"} onChange={() => setClientType("confidential")} />
          <Choice type="radio" name="client-type" label="Public (a browser or mobile app, no secret)" checked={clientType === "public"} onChange={() => setClientType("public")} />
        </ChoiceGroup>
      ) : (
        <p className="text-sm">
          Client type: <strong className="font-semibold">{client.client_type}</strong> <span className="text-slate-500 dark:text-slate-400">(fixed once registered)</span>
        </p>
      )}
      <Choice type="checkbox" label="First party (one of the platform's own apps)" checked={firstParty} onChange={(e) => setFirstParty(e.target.checked)} />
      <TextAreaField
        label="Redirect URIs"
        rows={3}
        value={uris}
        onChange={(e) => setUris(e.target.value)}
        spellCheck={false}
        hint="One a line. Absolute https URIs (http only for localhost, 127.x.x.x or [::1]), without a fragment."
        error={form.errors.redirect_uris}
      />
      <ChoiceGroup legend="Grant types" hint="Authorization code needs a redirect URI; refresh token goes with authorization code; client credentials need a secret." error={form.errors.allowed_grant_types}>
        {GRANT_TYPES.map((grant) => (
          <Choice key={grant} type="checkbox" label={GRANT_LABELS[grant]} checked={grantTypes.has(grant)} onChange={(e) => toggleGrant(grant, e.target.checked)} />
        ))}
      </ChoiceGroup>
      <PermissionPicker legend="Allowed scopes" hint="Catalog permissions the client may ask for." selected={scopes} onChange={setScopes} error={form.errors.allowed_scopes} />
      <FormAlert message={form.errors.form} />
      <DialogButtons onCancel={onCancel} pending={pending} label={client === null ? "Register client" : "Save client"} />
    </form>
  );
}

/** The secret of a confidential client, right after registering it or rotating its secret. */
export function ClientSecretDialog({ client, onClose }: { client: OAuthClientWithSecret | null; onClose: () => void }) {
  return (
    <Dialog open={client !== null && client.client_secret !== null} onClose={onClose} title="Copy the client secret" alert>
      {client?.client_secret && (
        <div className="space-y-4">
          <ShownOnceWarning what="client secret" />
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-500 dark:text-slate-400">Client</dt>
            <dd className="break-all">{client.name}</dd>
            <dt className="text-slate-500 dark:text-slate-400">Client ID</dt>
            <dd>
              <Code>{client.client_id}</Code>
            </dd>
          </dl>
          <SecretField label="Client secret" value={client.client_secret} copyLabel="Copy secret" />
          <div className="flex justify-end">
            <button type="button" onClick={onClose} className={primaryButton}>
              I have copied the secret
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
