import "server-only";
import type { CreateScimTokenInput } from "@/lib/schemas/scim";
import { MAX_SCIM_TOKENS, SCIM_TOKEN_PREFIX } from "@/lib/scim";
import { generateToken } from "@/server/auth/api-key-format";
import type { Context } from "@/server/db/context";
import { DomainError, notFound } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import { lockOrganization } from "@/server/services/quotas";
import { newestFirst, paginate, type PageQuery } from "@/server/services/pagination";

// An organization's SCIM tokens: what its directory sends as `Authorization: Bearer scim_…`. The
// token is answered once, at creation; only its SHA-256 is kept. Revoked tokens stay listed.

/** `scim_` and the first 8 characters after it. */
const DISPLAY_LENGTH = SCIM_TOKEN_PREFIX.length + 8;

const tokenColumns = {
  id: true,
  org_id: true,
  name: true,
  prefix: true,
  last_used_at: true,
  revoked_at: true,
  created_by: true,
  created_at: true,
  updated_at: true,
} as const;

export async function createScimToken(ctx: Context, orgId: string, input: CreateScimTokenInput) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  await lockOrganization(db, orgId);
  const live = await db.scimToken.count({ where: { org_id: orgId, revoked_at: null } });
  if (live >= MAX_SCIM_TOKENS)
    throw new DomainError(
      "conflict",
      `An organization holds at most ${MAX_SCIM_TOKENS} live SCIM tokens: revoke one first.`,
    );
  const token = generateToken(SCIM_TOKEN_PREFIX, DISPLAY_LENGTH);
  const row = await db.scimToken.create({
    data: { org_id: orgId, name: input.name, prefix: token.prefix, token_hash: token.hash },
    select: tokenColumns,
  });
  return { ...row, token: token.raw };
}

export async function listScimTokens(ctx: Context, orgId: string, query: PageQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return paginate(query, newestFirst, (w) =>
    db.scimToken.findMany({
      where: { org_id: orgId, ...w.after },
      orderBy: w.orderBy,
      take: w.take,
      select: tokenColumns,
    }),
  );
}

/** Revokes the token: the directory's next request with it is refused. Revoking again answers it as it is. */
export async function revokeScimToken(ctx: Context, orgId: string, tokenId: string) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const token = await db.scimToken.findFirst({ where: { id: tokenId, org_id: orgId }, select: tokenColumns });
  if (!token) throw notFound("SCIM token");
  if (token.revoked_at) return token;
  return db.scimToken.update({ where: { id: token.id }, data: { revoked_at: new Date() }, select: tokenColumns });
}
