import "server-only";
import { env } from "@/server/env";
import { parseKeyRing, type KeyRing } from "./secret-box";

let cached: { spec: string; ring: KeyRing } | undefined;

/** The configured encryption keys (SVC_ENCRYPTION_KEYS); refuses to run without them. */
export function keyRing(): KeyRing {
  const spec = env().SVC_ENCRYPTION_KEYS;
  if (!spec) throw new Error("SVC_ENCRYPTION_KEYS is not set: provider keys cannot be encrypted.");
  if (cached?.spec !== spec) cached = { spec, ring: parseKeyRing(spec) };
  return cached.ring;
}
