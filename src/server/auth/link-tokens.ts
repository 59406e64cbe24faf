import "server-only";
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { base62 } from "./api-key-format";

// Tokens of links sent to people (an invitation, a link verifying an address): 32 CSPRNG bytes in
// base62, shown once in the link and kept as SHA-256 only, like an API key. A stored hash is
// compared with the presented token's in constant time.

/** ceil(256 / log2(62)): every token has this length. */
const LINK_TOKEN_LENGTH = 43;
/** A token's shape: anything else is refused before the database is asked. */
export const LINK_TOKEN_SHAPE = /^[0-9A-Za-z]{43}$/;

export const hashLinkToken = (token: string): string => hash("sha256", token, "hex");

export function generateLinkToken(): { token: string; hash: string } {
  const token = base62(BigInt(`0x${randomBytes(32).toString("hex")}`), LINK_TOKEN_LENGTH);
  return { token, hash: hashLinkToken(token) };
}

/** Whether two SHA-256 hex digests are equal, in time that does not depend on where they differ. */
export function sameTokenHash(stored: string, presented: string): boolean {
  const a = Buffer.from(stored, "hex");
  const b = Buffer.from(presented, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
