import "server-only";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { keyRing } from "@/server/crypto/key-ring";
import { decrypt, encrypt } from "@/server/crypto/secret-box";

// Standard Webhooks signing: `whsec_` + base64 of 32 random bytes, shown once and stored encrypted
// (bound to the endpoint's row); each attempt carries `webhook-id`, `webhook-timestamp` and
// `webhook-signature`, which lists both signatures for 24 h after a rotation.

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export const newSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

const secretPlace = (endpointId: string, which: "current" | "previous") => `webhook_endpoints:${endpointId}:${which}`;

export const sealSecret = (endpointId: string, secret: string, which: "current" | "previous" = "current") =>
  encrypt(keyRing(), secret, secretPlace(endpointId, which));

export const openSecret = (endpointId: string, stored: string, which: "current" | "previous" = "current") =>
  decrypt(keyRing(), stored, secretPlace(endpointId, which));

export interface SigningSecrets {
  current: string;
  /** The secret before the last rotation, while its overlap lasts. */
  previous?: string;
}

/** The headers of one attempt: the message id, the time, and a signature per secret, space-separated. */
export function signedHeaders(
  secrets: SigningSecrets,
  messageId: string,
  at: Date,
  body: string,
): Record<string, string> {
  const signatures = [secrets.current, secrets.previous]
    .filter((s): s is string => s !== undefined)
    .map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
