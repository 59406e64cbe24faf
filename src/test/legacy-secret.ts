import { createCipheriv, randomBytes } from "node:crypto";
import type { KeyRing } from "@/server/crypto/secret-box";

/** A provider key as stored before values were bound to their row: `<version>:<iv>:<tag>:<data>`. */
export function legacyEncrypt(ring: KeyRing, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", ring.keys.get(ring.current) as Buffer, iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [ring.current, iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(":");
}
