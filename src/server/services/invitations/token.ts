import "server-only";
import { publicOrigin } from "@/server/http/public-origin";

// Where an invitation's link points. Its token is a link token (auth/link-tokens.ts); see
// docs/decisions/056-invitation-tokens.md.

/** The console page that accepts `token`, under AUTH_URL (else this server on localhost). */
export function acceptUrl(token: string): string {
  return `${publicOrigin()}/console/invitations/${token}`;
}
