import "server-only";
import { env } from "@/server/env";

// Where an invitation's link points. Its token is a link token (auth/link-tokens.ts); see
// docs/decisions/056-invitation-tokens.md.

/** The console page that accepts `token`, under AUTH_URL (else this server on localhost). */
export function acceptUrl(token: string): string {
  const { AUTH_URL, PORT } = env();
  const base = (AUTH_URL ?? `http://localhost:${PORT}`).replace(/\/+$/, "");
  return `${base}/console/invitations/${token}`;
}
