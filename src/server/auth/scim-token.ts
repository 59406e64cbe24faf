import "server-only";
import { SCIM_TOKEN_PREFIX } from "@/lib/scim";
import { dataLayer } from "@/server/db/data-layer";
import type { ScimActor } from "./actor";
import { hashKey, isWellFormedToken } from "./api-key-format";

// Who calls the SCIM service: the organization whose live token the request carries as
// `Authorization: Bearer scim_…`. Read from the database on every request (directories call
// rarely), so a revoked token or a deleted organization is refused at its next request.

/** The token in the Authorization header, when it is one of ours by its form and checksum. */
function bearerTokenOf(authorization: string | null): string | null {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? "");
  const token = match?.[1];
  return token && isWellFormedToken(token, SCIM_TOKEN_PREFIX) ? token : null;
}

/** The actor of the request's SCIM token; null for no token, an unknown or revoked one, or a deleted organization. */
export async function scimActorOf(authorization: string | null): Promise<ScimActor | null> {
  const token = bearerTokenOf(authorization);
  if (!token) return null;
  const row = await dataLayer("system:auth").scimToken.findFirst({
    where: { token_hash: hashKey(token), revoked_at: null, org: { is_deleted: false } },
    select: { id: true, org_id: true, prefix: true },
  });
  return row ? { kind: "system", name: "scim", orgId: row.org_id, token: { id: row.id, prefix: row.prefix } } : null;
}
