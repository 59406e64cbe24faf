import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/server/auth/actor";
import { requireKnownScopes, requireScopesHeld } from "@/server/auth/escalation";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { newestFirst, paginate } from "@/server/services/pagination";
import {
  clientShapeProblems,
  type CreateOAuthClientInput,
  type ListOAuthClientsQuery,
  type oauthClientSchema,
  type oauthClientWithSecretSchema,
  type UpdateOAuthClientInput,
} from "@/lib/schemas/oauth-clients";
import { containing } from "@/server/services/search";

// OAuth 2.0 client registrations. A confidential client's secret is generated here, returned once
// and stored only as its SHA-256 (256 random bits leave a slow hash nothing to protect). Allowed
// scopes must be catalog permissions the registrant holds (unless a sys_admin): a client_credentials
// client acts on its own, so registering one must not hand out more. See docs/access.md.

const SECRET_PREFIX = "cds_";

type Row = Prisma.Oauth2ClientGetPayload<object>;
type OAuthClient = z.output<typeof oauthClientSchema>;
type OAuthClientWithSecret = z.output<typeof oauthClientWithSecretSchema>;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

// A mapper: the JSON lists are kept to their strings, and the secret's hash says only whether there is one.
function toOAuthClient(row: Row): OAuthClient {
  return {
    id: row.id,
    client_id: row.client_id,
    name: row.name,
    client_type: row.client_type as OAuthClient["client_type"],
    is_first_party: row.is_first_party,
    redirect_uris: strings(row.redirect_uris),
    allowed_grant_types: strings(row.allowed_grant_types),
    allowed_scopes: strings(row.allowed_scopes),
    has_secret: row.client_secret_hash !== null,
    is_active: row.is_active,
    is_deleted: row.is_deleted,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const hashClientSecret = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex");

function newSecret(): { secret: string; hash: string } {
  const secret = SECRET_PREFIX + randomBytes(32).toString("base64url");
  return { secret, hash: hashClientSecret(secret) };
}

const newClientId = (): string => `svc_${randomBytes(16).toString("hex")}`;

/** Scopes of a client must be in the catalog; the ones it gains, held by a non-sys_admin registrant. */
function checkScopes(actor: Actor, scopes: readonly string[], added: readonly string[]): void {
  requireKnownScopes(scopes, "allowed_scopes");
  requireScopesHeld(actor, requireKnownScopes(added, "allowed_scopes"), "You do");
}

async function requireClient(db: Pick<DataLayer, "oauth2Client">, clientId: string): Promise<Row> {
  const row = await db.oauth2Client.findUnique({ where: { client_id: clientId } });
  if (!row) throw notFound("OAuth client");
  return row;
}

export async function createOAuthClient(ctx: Context, input: CreateOAuthClientInput): Promise<OAuthClientWithSecret> {
  checkScopes(ctx.actor, input.allowed_scopes, input.allowed_scopes);
  const secret = input.client_type === "confidential" ? newSecret() : null;
  const row = await ctx.db.oauth2Client.create({
    data: {
      client_id: newClientId(),
      client_secret_hash: secret?.hash ?? null,
      name: input.name,
      client_type: input.client_type,
      is_first_party: input.is_first_party,
      redirect_uris: input.redirect_uris,
      allowed_grant_types: input.allowed_grant_types,
      allowed_scopes: input.allowed_scopes,
    },
  });
  return { ...toOAuthClient(row), client_secret: secret?.secret ?? null };
}

export async function listOAuthClients(
  ctx: Context,
  query: ListOAuthClientsQuery,
): Promise<{ data: OAuthClient[]; next_cursor: string | null }> {
  const contains = query.q ? containing(query.q) : undefined;
  const where = {
    ...(contains ? { OR: [{ name: contains }, { client_id: contains }] } : {}),
    ...(query.active === undefined ? {} : { is_active: query.active }),
  };
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  return paginate(
    query,
    newestFirst,
    (w) => db.oauth2Client.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toOAuthClient,
  );
}

export async function getOAuthClient(
  ctx: Context,
  clientId: string,
  options: { includeDeleted?: boolean } = {},
): Promise<OAuthClient> {
  return toOAuthClient(
    await requireClient(options.includeDeleted === true ? ctx.includingDeleted() : ctx.db, clientId),
  );
}

/** Updates a client; the result must still be a valid registration. client_type is fixed. */
export async function updateOAuthClient(
  ctx: Context,
  clientId: string,
  input: UpdateOAuthClientInput,
): Promise<OAuthClient> {
  const { db } = ctx;
  const row = await db.$transaction(async (tx) => {
    const current = await requireClient(tx, clientId);
    if (input.client_type !== undefined && input.client_type !== current.client_type) {
      throw new DomainError("immutable_field", "The client type is fixed at registration.", {
        errors: [{ path: "client_type", message: "is fixed at registration" }],
      });
    }
    const next = {
      client_type: current.client_type,
      redirect_uris: input.redirect_uris ?? strings(current.redirect_uris),
      allowed_grant_types: input.allowed_grant_types ?? strings(current.allowed_grant_types),
    };
    const problems = clientShapeProblems(next);
    if (problems.length > 0) throw validationFailed(problems);
    if (input.allowed_scopes) {
      const before = new Set(strings(current.allowed_scopes));
      checkScopes(
        ctx.actor,
        input.allowed_scopes,
        input.allowed_scopes.filter((s) => !before.has(s)),
      );
    }
    const { client_type: _fixed, ...changes } = input;
    return tx.oauth2Client.update({ where: { id: current.id }, data: changes });
  });
  return toOAuthClient(row);
}

/** Soft delete: the client disappears from lists and can no longer be used. */
export async function deleteOAuthClient(ctx: Context, clientId: string): Promise<OAuthClient> {
  const { db } = ctx;
  const current = await requireClient(db, clientId);
  return toOAuthClient(
    await db.oauth2Client.update({ where: { id: current.id }, data: { is_deleted: true, is_active: false } }),
  );
}

/** Brings a deleted client back, still deactivated (activate it with an update); a live one answers as it is. */
export async function restoreOAuthClient(ctx: Context, clientId: string): Promise<OAuthClient> {
  const { db } = ctx;
  const deleted = await db.oauth2Client.findFirst({ where: { client_id: clientId, is_deleted: true } });
  if (!deleted) return getOAuthClient(ctx, clientId);
  return toOAuthClient(
    await db.oauth2Client.update({ where: { id: deleted.id, is_deleted: true }, data: { is_deleted: false } }),
  );
}

/** Issues a new secret for a confidential client; the old one stops working at once. */
export async function rotateOAuthClientSecret(ctx: Context, clientId: string): Promise<OAuthClientWithSecret> {
  const { db } = ctx;
  const current = await requireClient(db, clientId);
  if (current.client_type !== "confidential")
    throw new DomainError("conflict", "A public client has no secret to rotate.");
  const secret = newSecret();
  const row = await db.oauth2Client.update({ where: { id: current.id }, data: { client_secret_hash: secret.hash } });
  return { ...toOAuthClient(row), client_secret: secret.secret };
}

/**
 * Checks a presented client secret (for the token endpoint): an active, non-deleted confidential
 * client whose stored hash matches, compared in constant time.
 */
export async function verifyClientSecret(db: DataLayer, clientId: string, secret: string): Promise<boolean> {
  const row = await db.oauth2Client.findUnique({
    where: { client_id: clientId },
    select: { client_secret_hash: true, is_active: true },
  });
  if (!row?.is_active || !row.client_secret_hash) return false;
  const a = Buffer.from(row.client_secret_hash, "hex");
  const b = Buffer.from(hashClientSecret(secret), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
