import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import { isPermission } from "@/lib/permissions";
import type {
  CreateSsoConnectionInput,
  ListSsoConnectionsQuery,
  ssoConnectionSchema,
  UpdateSsoConnectionInput,
} from "@/lib/schemas/sso";
import {
  DEFAULT_OIDC_SCOPES,
  MAX_SSO_CONNECTIONS,
  ssoOidcCallbackPath,
  ssoSamlAcsPath,
  ssoSamlMetadataPath,
} from "@/lib/sso";
import type { z } from "zod";
import { requireHeldByActor } from "@/server/auth/escalation";
import { keyRing } from "@/server/crypto/key-ring";
import { decrypt, encrypt } from "@/server/crypto/secret-box";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { env } from "@/server/env";
import { DomainError, notFound, validationFailed, type FieldError } from "@/server/errors";
import { publicOrigin } from "@/server/http/public-origin";
import type { Invalidation } from "@/server/auth/invalidation";
import { withAccessChange } from "@/server/services/access-changes";
import { normalizeDomain } from "@/server/services/domains/service";
import { baseUrlProblem } from "@/server/services/llm-configs/base-url";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import { certificateBody, describeCertificate, readIdpMetadata, SamlXmlRefused } from "./saml-xml";

// An organization's single sign-on connections: its own OIDC or SAML identity provider, the verified
// domains whose people sign in through it, the role they join with, and whether the organization
// admits console sessions made any other way (enforce). Access is decided before these run
// (svc:org:sso:*). The OIDC client secret is stored encrypted, bound to its row, and never answered.

export type ConnectionRow = Prisma.SsoConnectionGetPayload<object>;
type Connection = z.output<typeof ssoConnectionSchema>;

/** The service provider's values for a connection: what the org admin enters at the IdP. */
export function serviceProviderOf(id: string) {
  const origin = publicOrigin();
  return {
    redirectUri: `${origin}${ssoOidcCallbackPath(id)}`,
    spEntityId: `${origin}${ssoSamlMetadataPath(id)}`,
    acsUrl: `${origin}${ssoSamlAcsPath(id)}`,
    metadataUrl: `${origin}${ssoSamlMetadataPath(id)}`,
  };
}

function toConnection(row: ConnectionRow): Connection {
  const sp = serviceProviderOf(row.id);
  const oidc = row.type === "oidc";
  return {
    id: row.id,
    org_id: row.org_id,
    type: row.type as Connection["type"],
    domains: row.domains,
    default_role_id: row.default_role_id,
    enforce: row.enforce,
    enabled: row.enabled,
    issuer: row.oidc_issuer,
    client_id: row.oidc_client_id,
    scopes: row.oidc_scopes,
    redirect_uri: oidc ? sp.redirectUri : null,
    idp_entity_id: row.saml_idp_entity_id,
    idp_sso_url: row.saml_idp_sso_url,
    idp_certificates: row.saml_idp_certificates.map(describeCertificate),
    allow_idp_initiated: row.saml_allow_idp_initiated,
    sp_entity_id: oidc ? null : sp.spEntityId,
    acs_url: oidc ? null : sp.acsUrl,
    metadata_url: oidc ? null : sp.metadataUrl,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const secretPlace = (connectionId: string) => `sso_connections:${connectionId}:client_secret`;

/** The OIDC client secret of a connection, decrypted for a token request. */
export const clientSecretOf = (row: ConnectionRow): string | undefined =>
  row.oidc_client_secret_encrypted
    ? decrypt(keyRing(), row.oidc_client_secret_encrypted, secretPlace(row.id))
    : undefined;

const allowHttpLoopback = () => env().SVC_ALLOW_HTTP_LOOPBACK === "1";

/** Why a URL the app will call or send people to is refused (https, not internal), or undefined. */
export const idpUrlProblem = (url: string) => baseUrlProblem(url, allowHttpLoopback());

/**
 * Why a SAML sign-on URL is refused, or undefined. The browser goes there, not this app, so an
 * IdP inside the company's network is fine; it must be https (http on loopback for development).
 */
function signOnUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol === "https:") return undefined;
  return url.protocol === "http:" && idpUrlProblem(value) === undefined ? undefined : "must use https";
}

/** The domains as stored; each must be one the organization has verified, and in no other of its connections. */
async function requireCoveredDomains(db: DataLayer, orgId: string, domains: string[], connectionId?: string) {
  const errors: FieldError[] = [];
  const normalized = domains.map((value, i) => {
    const domain = normalizeDomain(value);
    if (!domain) errors.push({ path: `domains.${i}`, message: "must be a domain name such as example.com" });
    return domain ?? "";
  });
  if (errors.length > 0) throw validationFailed(errors);
  const unique = [...new Set(normalized)];
  const verified = new Set(
    (
      await db.organizationDomain.findMany({
        where: { org_id: orgId, domain: { in: unique }, status: "verified" },
        select: { domain: true },
      })
    ).map((d) => d.domain),
  );
  unique.forEach((domain) => {
    if (!verified.has(domain))
      errors.push({
        path: `domains.${normalized.indexOf(domain)}`,
        message: "is not a verified domain of the organization",
      });
  });
  if (errors.length > 0)
    throw validationFailed(errors, "A connection covers only domains the organization has verified.");
  const other = await db.ssoConnection.findFirst({
    where: { org_id: orgId, domains: { hasSome: unique }, ...(connectionId ? { id: { not: connectionId } } : {}) },
    select: { id: true },
  });
  if (other)
    throw new DomainError("conflict", "Another connection of the organization already covers one of these domains.", {
      errors: [{ path: "domains", message: "is covered by another connection" }],
    });
  return unique;
}

/** The default role: an org role the actor holds every permission of in the organization (org_member unless named). */
async function requireDefaultRole(ctx: Context, orgId: string, roleId: string | undefined): Promise<string> {
  const role = await ctx.db.role.findFirst({
    where: roleId ? { id: roleId, scope: "org" } : { name: "org_member", is_built_in: true },
    select: { id: true, permissions: { select: { permission: true } } },
  });
  if (!role) throw validationFailed([{ path: "default_role_id", message: "is not an org role" }]);
  requireHeldByActor(ctx.actor, role.permissions.map((p) => p.permission).filter(isPermission), orgId);
  return role.id;
}

type ProtocolFields = Pick<
  Prisma.SsoConnectionUncheckedCreateInput,
  | "oidc_issuer"
  | "oidc_client_id"
  | "oidc_scopes"
  | "saml_idp_entity_id"
  | "saml_idp_sso_url"
  | "saml_idp_certificates"
  | "saml_allow_idp_initiated"
>;

const fieldsOfOtherType = (type: string, input: UpdateSsoConnectionInput): string[] => {
  const oidcFields = ["issuer", "client_id", "client_secret", "scopes"] as const;
  const samlFields = [
    "idp_metadata_xml",
    "idp_entity_id",
    "idp_sso_url",
    "idp_certificates",
    "allow_idp_initiated",
  ] as const;
  return (type === "oidc" ? samlFields : oidcFields).filter((f) => input[f] !== undefined);
};

/** The protocol's columns from the input, over the existing row's when updating; refuses what is missing or malformed. */
function protocolFields(type: string, input: UpdateSsoConnectionInput, existing?: ConnectionRow): ProtocolFields {
  const misplaced = fieldsOfOtherType(type, input);
  if (misplaced.length > 0)
    throw validationFailed(misplaced.map((f) => ({ path: f, message: `is not a field of a ${type} connection` })));
  if (type === "oidc") {
    const issuer = input.issuer ?? existing?.oidc_issuer;
    const clientId = input.client_id ?? existing?.oidc_client_id;
    const errors: FieldError[] = [];
    if (!issuer) errors.push({ path: "issuer", message: "is required" });
    else {
      const problem = idpUrlProblem(issuer);
      if (problem) errors.push({ path: "issuer", message: problem });
    }
    if (!clientId) errors.push({ path: "client_id", message: "is required" });
    if (!input.client_secret && !existing?.oidc_client_secret_encrypted)
      errors.push({ path: "client_secret", message: "is required" });
    const scopes = input.scopes ?? existing?.oidc_scopes ?? [...DEFAULT_OIDC_SCOPES];
    if (!scopes.includes("openid")) errors.push({ path: "scopes", message: "must include openid" });
    if (errors.length > 0) throw validationFailed(errors);
    return {
      oidc_issuer: issuer!.replace(/\/+$/, ""),
      oidc_client_id: clientId!,
      oidc_scopes: [...new Set(scopes)],
      saml_idp_certificates: [],
    };
  }
  let entityId = input.idp_entity_id ?? existing?.saml_idp_entity_id ?? undefined;
  let ssoUrl = input.idp_sso_url ?? existing?.saml_idp_sso_url ?? undefined;
  let certificates = existing?.saml_idp_certificates ?? [];
  if (input.idp_metadata_xml !== undefined) {
    try {
      const metadata = readIdpMetadata(input.idp_metadata_xml);
      ({ entityId, ssoUrl, certificates } = metadata);
    } catch (error) {
      if (!(error instanceof SamlXmlRefused)) throw error;
      throw validationFailed([{ path: "idp_metadata_xml", message: `is not usable: ${error.message}` }]);
    }
  }
  const errors: FieldError[] = [];
  if (input.idp_certificates) {
    certificates = [];
    input.idp_certificates.forEach((value, i) => {
      const body = certificateBody(value);
      if (body) certificates.push(body);
      else errors.push({ path: `idp_certificates.${i}`, message: "is not an X.509 certificate (PEM or base64 DER)" });
    });
  }
  if (!entityId) errors.push({ path: "idp_entity_id", message: "is required (or give idp_metadata_xml)" });
  if (!ssoUrl) errors.push({ path: "idp_sso_url", message: "is required (or give idp_metadata_xml)" });
  else {
    const problem = signOnUrlProblem(ssoUrl);
    if (problem) errors.push({ path: "idp_sso_url", message: problem });
  }
  if (certificates.length === 0 && errors.length === 0)
    errors.push({ path: "idp_certificates", message: "is required (or give idp_metadata_xml)" });
  if (errors.length > 0) throw validationFailed(errors);
  return {
    oidc_scopes: [],
    saml_idp_entity_id: entityId!,
    saml_idp_sso_url: ssoUrl!,
    saml_idp_certificates: certificates,
    saml_allow_idp_initiated: input.allow_idp_initiated ?? existing?.saml_allow_idp_initiated ?? false,
  };
}

const enforcing = (row: ConnectionRow | null) => Boolean(row && row.enforce && row.enabled && !row.is_deleted);

/**
 * Writes a connection; when it starts or stops enforcing, every process re-reads which sessions
 * reach the organization (the invalidation channel's "everything", as this is rare).
 */
async function writeConnection(
  db: DataLayer,
  before: ConnectionRow | null,
  write: (tx: DataLayer) => Promise<ConnectionRow>,
): Promise<ConnectionRow> {
  return withAccessChange(db, async (tx) => {
    const row = await write(tx as DataLayer);
    const event: Invalidation | null = enforcing(before) !== enforcing(row) ? { all: true } : null;
    return { result: row, event };
  });
}

/**
 * Turning enforce on from a session not signed in through the connection would shut that session
 * out of the organization at once: only a session signed in through it (or a sys_admin's) may.
 */
function requireMayEnforce(ctx: Context, connectionId: string | null) {
  const { actor } = ctx;
  if (actor.kind !== "session" || actor.grants.isSysAdmin || actor.ssoConnectionId === connectionId) return;
  throw new DomainError(
    "conflict",
    "Turning enforce on would shut this session out of the organization: sign in through this connection first (or ask a sys_admin).",
    { errors: [{ path: "enforce", message: "needs a session signed in through this connection" }] },
  );
}

async function requireConnection(db: DataLayer, orgId: string, connectionId: string): Promise<ConnectionRow> {
  const row = await db.ssoConnection.findFirst({ where: { id: connectionId, org_id: orgId } });
  if (!row) throw notFound("SSO connection");
  return row;
}

export async function createSsoConnection(
  ctx: Context,
  orgId: string,
  input: CreateSsoConnectionInput,
): Promise<Connection> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  if ((await db.ssoConnection.count({ where: { org_id: orgId } })) >= MAX_SSO_CONNECTIONS)
    throw new DomainError("quota_exceeded", `An organization may have at most ${MAX_SSO_CONNECTIONS} SSO connections.`);
  const fields = protocolFields(input.type, input);
  if (input.enforce && input.enabled !== false) requireMayEnforce(ctx, null);
  const domains = await requireCoveredDomains(db, orgId, input.domains);
  const defaultRoleId = await requireDefaultRole(ctx, orgId, input.default_role_id);
  // The secret's ciphertext is bound to the row, so the row's id is drawn first.
  const [{ id }] = (await db.$queryRaw<{ id: string }[]>`SELECT svc_uuid_v7()::text AS id`) as [{ id: string }];
  const row = await writeConnection(db, null, (tx) =>
    tx.ssoConnection.create({
      data: {
        id,
        org_id: orgId,
        type: input.type,
        domains,
        default_role_id: defaultRoleId,
        enforce: input.enforce ?? false,
        enabled: input.enabled ?? true,
        ...fields,
        oidc_client_secret_encrypted: input.client_secret
          ? encrypt(keyRing(), input.client_secret, secretPlace(id))
          : null,
      },
    }),
  );
  return toConnection(row);
}

export async function listSsoConnections(ctx: Context, orgId: string, query: ListSsoConnectionsQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return paginate(
    query,
    newestFirst,
    (w) => db.ssoConnection.findMany({ where: { org_id: orgId, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toConnection,
  );
}

export async function getSsoConnection(ctx: Context, orgId: string, connectionId: string): Promise<Connection> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return toConnection(await requireConnection(db, orgId, connectionId));
}

export async function updateSsoConnection(
  ctx: Context,
  orgId: string,
  connectionId: string,
  input: UpdateSsoConnectionInput,
): Promise<Connection> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const existing = await requireConnection(db, orgId, connectionId);
  const fields = protocolFields(existing.type, input, existing);
  // Enforcing starts when enforce goes on, or when a connection with enforce on is enabled again.
  if ((input.enforce ?? existing.enforce) && (input.enabled ?? existing.enabled) && !enforcing(existing))
    requireMayEnforce(ctx, existing.id);
  const domains = input.domains ? await requireCoveredDomains(db, orgId, input.domains, existing.id) : undefined;
  const defaultRoleId = input.default_role_id ? await requireDefaultRole(ctx, orgId, input.default_role_id) : undefined;
  const row = await writeConnection(db, existing, (tx) =>
    tx.ssoConnection.update({
      where: { id: existing.id },
      data: {
        ...fields,
        domains,
        default_role_id: defaultRoleId,
        enforce: input.enforce,
        enabled: input.enabled,
        ...(input.client_secret
          ? { oidc_client_secret_encrypted: encrypt(keyRing(), input.client_secret, secretPlace(existing.id)) }
          : {}),
      },
    }),
  );
  return toConnection(row);
}

export async function deleteSsoConnection(ctx: Context, orgId: string, connectionId: string): Promise<Connection> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const existing = await requireConnection(db, orgId, connectionId);
  const row = await writeConnection(db, existing, (tx) =>
    tx.ssoConnection.update({ where: { id: existing.id }, data: { is_deleted: true } }),
  );
  return toConnection(row);
}
