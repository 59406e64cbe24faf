import "server-only";
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

// Tokens of links sent by email (verifying an address): 32 CSPRNG bytes in base62, kept as SHA-256
// only. A stored hash is compared with the presented token's in constant time.

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** ceil(256 / log2(62)): every token has this length. */
export const LINK_TOKEN_LENGTH = 43;
export const LINK_TOKEN_SHAPE = /^[0-9A-Za-z]{43}$/;

export const hashLinkToken = (token: string): string => hash("sha256", token, "hex");

export function generateLinkToken(): { token: string; hash: string } {
  let rest = BigInt(`0x${randomBytes(32).toString("hex")}`);
  let token = "";
  while (rest > 0n) {
    token = ALPHABET[Number(rest % 62n)] + token;
    rest /= 62n;
  }
  token = token.padStart(LINK_TOKEN_LENGTH, "0");
  return { token, hash: hashLinkToken(token) };
}

/** Whether two SHA-256 hex digests are equal, in time that does not depend on where they differ. */
export function sameTokenHash(stored: string, presented: string): boolean {
  const a = Buffer.from(stored, "hex");
  const b = Buffer.from(presented, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
