import "server-only";
import { env } from "@/server/env";

/** Where people reach the console: AUTH_URL, else this server on localhost. No trailing slash. */
export function publicOrigin(): string {
  const { AUTH_URL, PORT } = env();
  return (AUTH_URL ?? `http://localhost:${PORT}`).replace(/\/+$/, "");
}
