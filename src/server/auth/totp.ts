import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { generateSecret, generateSync, generateURI, verifySync } from "otplib";
import { RECOVERY_CODES } from "@/lib/schemas/two-factor";

// TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps) and recovery codes. A code is accepted
// one step either side of now, for clocks that drift and codes typed as the step turns; a code of a
// step at or before the last one accepted is refused, so an overheard code cannot be replayed.

const TOTP_ISSUER = "svc";
const PERIOD_SECONDS = 30;
/** One step either side, as seconds of tolerance (otplib checks every step within it). */
const TOLERANCE_SECONDS = PERIOD_SECONDS;

/** A fresh secret: 20 random bytes (160 bits, RFC 4226's recommendation) in base32. */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

/** The otpauth:// URI an authenticator app reads from the QR code. */
export const totpUri = (secret: string, username: string): string =>
  generateURI({ issuer: TOTP_ISSUER, label: username, secret });

/** The code of `secret` at `epochSeconds` (for tests and the RFC's vectors: `digits` 8). */
export const totpCode = (secret: string | Uint8Array, epochSeconds: number, digits: 6 | 8 = 6): string =>
  generateSync({ secret, epoch: epochSeconds, digits });

/**
 * The time step `code` belongs to when it is valid within one step of `epochSeconds` and later than
 * `afterStep`; null otherwise.
 */
export function matchTotp(
  secret: string,
  code: string,
  afterStep: number | null,
  epochSeconds = Date.now() / 1000,
): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(epochSeconds),
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

// Recovery codes: 16 base32 characters (80 random bits) in groups of four. That much randomness
// leaves a slow hash nothing to protect, so they are stored as SHA-256 and looked up directly.
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

function recoveryCode(): string {
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => BASE32[b & 31]).join("");
  return chars.match(/.{4}/g)!.join("-");
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODES }, recoveryCode);

/** What a typed recovery code is compared as: case, spaces and dashes do not matter. */
export const recoveryCodeHash = (code: string): string =>
  createHash("sha256").update(code.toLowerCase().replace(/[\s-]/g, "")).digest("hex");

/** Whether what was typed has the shape of a recovery code rather than of a TOTP code. */
export const looksLikeRecoveryCode = (code: string): boolean => /^[a-z2-7]{16}$/i.test(code.replace(/[\s-]/g, ""));
