import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";

// Short-lived statements the server makes to itself through the browser (in an HttpOnly cookie):
// JSON signed with AUTH_SECRET under a purpose, so a value sealed for one use never opens for
// another, and void once expired. They are signed, not encrypted: put nothing secret in them.

function secret(): string {
  const value = process.env.AUTH_SECRET;
  if (!value) throw new Error("AUTH_SECRET is not set");
  return value;
}

const sign = (purpose: string, payload: string) =>
  createHmac("sha256", `${purpose}:${secret()}`).update(payload).digest("base64url");

/** `value` signed for `purpose`, valid for `seconds`. */
export function seal(purpose: string, value: object, seconds: number): string {
  const payload = Buffer.from(JSON.stringify({ ...value, expires: Date.now() + seconds * 1000 })).toString("base64url");
  return `${payload}.${sign(purpose, payload)}`;
}

/** The value sealed for `purpose`, or null when the seal is missing, forged, for another purpose or expired. */
export function unseal<T extends object>(purpose: string, sealed: string | undefined): T | null {
  const [payload, mac] = (sealed ?? "").split(".");
  if (!payload || !mac) return null;
  const expected = Buffer.from(sign(purpose, payload));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as T & { expires: number };
    return typeof value.expires === "number" && value.expires > Date.now() ? value : null;
  } catch {
    return null;
  }
}
