import "server-only";
import { hash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

// Key format: `cdk_` + 32 CSPRNG bytes in base62 (43 characters, fixed
// width) + a 6-character base62 CRC32 of everything before it. The checksum lets a typo or a
// random probe be refused without any database work. SCIM tokens have the same form under `scim_`.

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PREFIX = "cdk_";
const BODY_LENGTH = 43; // ceil(256 / log2(62))
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
export const DISPLAY_PREFIX_LENGTH = 12;
const SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

export function base62(value: bigint, width: number): string {
  let out = "";
  let rest = value;
  while (rest > 0n) {
    out = ALPHABET[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  return out.padStart(width, "0");
}

/** The 6-character base62 CRC32 (a 32-bit number: plain arithmetic, no BigInt, on every request). */
function checksum(text: string): string {
  let rest = crc32(text);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

export interface GeneratedKey {
  raw: string;
  prefix: string;
  hash: string;
}

export const hashKey = (raw: string): string => hash("sha256", raw, "hex");

/** A new secret of the key's form under `prefix`; `displayLength`: how much of it lists show. */
export function generateToken(prefix: string, displayLength: number): GeneratedKey {
  const body = prefix + base62(BigInt(`0x${randomBytes(32).toString("hex")}`), BODY_LENGTH);
  const raw = body + checksum(body);
  return { raw, prefix: raw.slice(0, displayLength), hash: hashKey(raw) };
}

export const generateKey = (): GeneratedKey => generateToken(KEY_PREFIX, DISPLAY_PREFIX_LENGTH);

/** True when the value is a secret of the key's form under `prefix` whose checksum matches. */
export const isWellFormedToken = (value: string, prefix: string): boolean =>
  value.length === prefix.length + BODY_LENGTH + CHECKSUM_LENGTH &&
  value.startsWith(prefix) &&
  /^[0-9A-Za-z]+$/.test(value.slice(prefix.length)) &&
  checksumMatches(value);

/** True when the value has the key's shape (prefix, length, alphabet); the checksum is not checked. */
export const hasKeyShape = (value: string): boolean => value.length === KEY_LENGTH && SHAPE.test(value);

/** True when a value of the key's shape ends with the checksum of the rest. */
export const checksumMatches = (value: string): boolean =>
  value.slice(-CHECKSUM_LENGTH) === checksum(value.slice(0, -CHECKSUM_LENGTH));

/** True when the value has the key's shape and its checksum matches: worth a lookup. */
export const isWellFormedKey = (value: string): boolean => hasKeyShape(value) && checksumMatches(value);
