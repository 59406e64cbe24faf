import "server-only";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// Secrets at rest: AES-256-GCM under versioned keys (`bound:<version>:<iv>:<tag>:<ciphertext>`), so
// keys can rotate and old values stay readable. Each value is bound to where it is stored by the
// cipher's associated data, so a copy in another row does not decrypt; values written before binding
// (no `bound:` prefix) are still read. A tampered value throws: nothing comes back half-decrypted.

export interface KeyRing {
  current: string;
  keys: ReadonlyMap<string, Buffer>;
}

const VERSION = /^[A-Za-z0-9_-]{1,16}$/;

/** Parses `v2:<base64 32 bytes>,v1:<base64 32 bytes>`; the first entry is the current key. */
export function parseKeyRing(spec: string): KeyRing {
  const keys = new Map<string, Buffer>();
  let current: string | undefined;
  for (const entry of spec
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf(":");
    const version = entry.slice(0, at);
    const key = Buffer.from(entry.slice(at + 1), "base64");
    if (at < 1 || !VERSION.test(version) || key.length !== 32) {
      throw new Error("SVC_ENCRYPTION_KEYS must list version:base64-of-32-bytes entries, the current one first");
    }
    if (keys.has(version)) throw new Error(`SVC_ENCRYPTION_KEYS names version ${version} twice`);
    keys.set(version, key);
    current ??= version;
  }
  if (!current) throw new Error("SVC_ENCRYPTION_KEYS is empty");
  return { current, keys };
}

export const newKeySpec = (version = "v1") => `${version}:${randomBytes(32).toString("base64")}`;

const BOUND = "bound";

/** Encrypts under the current key, bound to `context` (what names the value's place, e.g. its row). */
export function encrypt(ring: KeyRing, plaintext: string, context: string): string {
  const key = ring.keys.get(ring.current) as Buffer;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [BOUND, ring.current, iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(":");
}

export class SecretUnreadable extends Error {
  constructor(reason: string) {
    super(`A stored secret cannot be decrypted: ${reason}`);
    this.name = "SecretUnreadable";
  }
}

/** Decrypts a value stored at `context` (a value written before binding is read without it). */
export function decrypt(ring: KeyRing, stored: string, context: string): string {
  const parts = stored.split(":");
  const bound = parts[0] === BOUND;
  const [version, iv, tag, data, extra] = bound ? parts.slice(1) : parts;
  if (!version || !iv || !tag || data === undefined || extra !== undefined)
    throw new SecretUnreadable("not an encrypted value");
  const key = ring.keys.get(version);
  if (!key) throw new SecretUnreadable(`no key of version ${version} is configured`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    if (bound) decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretUnreadable("it was altered, moved from another place, or encrypted with another key");
  }
}

/** Whether a stored value is bound to its place and under the current key: nothing to re-encrypt. */
export const isCurrent = (ring: KeyRing, stored: string): boolean => stored.startsWith(`${BOUND}:${ring.current}:`);

/** The key version of a stored value. */
export const keyVersionOf = (stored: string): string => {
  const parts = stored.split(":");
  return (parts[0] === BOUND ? parts[1] : parts[0]) ?? "";
};
