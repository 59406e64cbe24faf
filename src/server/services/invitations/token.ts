import "server-only";
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { base62 } from "@/server/auth/api-key-format";
import { env } from "@/server/env";
import { INVITATION_TOKEN_LENGTH } from "@/lib/schemas/invitations";

// An invitation's token: 32 CSPRNG bytes in base62, shown once in its link and kept as SHA-256 only,
// like an API key. See docs/decisions/056-invitation-tokens.md.

export const hashToken = (token: string): string => hash("sha256", token, "hex");

export function newToken(): { token: string; hash: string } {
  const token = base62(BigInt(`0x${randomBytes(32).toString("hex")}`), INVITATION_TOKEN_LENGTH);
  return { token, hash: hashToken(token) };
}

/** Whether `token` has a token's shape: anything else is refused before the database is asked. */
export const hasTokenShape = (token: string): boolean =>
  token.length === INVITATION_TOKEN_LENGTH && /^[0-9A-Za-z]+$/.test(token);

/** Compares a stored hash with a token's, in time independent of where they differ. */
export function hashMatches(storedHash: string, token: string): boolean {
  const a = Buffer.from(storedHash, "hex");
  const b = Buffer.from(hashToken(token), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The console page that accepts `token`, under AUTH_URL (else this server on localhost). */
export function acceptUrl(token: string): string {
  const { AUTH_URL, PORT } = env();
  const base = (AUTH_URL ?? `http://localhost:${PORT}`).replace(/\/+$/, "");
  return `${base}/console/invitations/${token}`;
}
