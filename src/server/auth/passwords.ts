import "server-only";
import { hash, verify, type Algorithm } from "@node-rs/argon2";
import { randomBytes } from "node:crypto";

// argon2id with OWASP's recommended minimum: 19 MiB memory, 2 iterations, 1 lane.
// Algorithm.Argon2id is an ambient const enum, which isolated modules cannot read: its value is 2.
const ARGON2ID = 2 as Algorithm;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A random password of 24 URL-safe characters (144 bits). */
export const generatePassword = (): string => randomBytes(18).toString("base64url");
