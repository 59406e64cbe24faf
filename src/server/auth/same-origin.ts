import "server-only";
import { DomainError } from "@/server/errors";

// A browser sends the console's cookie with any request to this site, whichever page made it: a
// write carried by the cookie must come from this site's own pages (Sec-Fetch-Site same-origin, or
// an Origin naming this host), so another site cannot act with a signed-in user's session. API
// keys are not sent by browsers on their own and need no such check.

/** Whether a request provably comes from a page of this site. */
export function isSameOrigin(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = request.headers.get("origin");
  if (origin === null) return site === "same-origin";
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Refuses (403) a write carried by the session cookie that does not come from this site. */
export function requireSameOriginWrite(request: Request): void {
  if (!READS.has(request.method) && !isSameOrigin(request)) {
    throw new DomainError("forbidden", "Cross-site requests cannot change anything with the console's session.");
  }
}
