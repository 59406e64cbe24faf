import { isSsoErrorCode, SSO_ERRORS } from "@/lib/sso";

// Where a refused SSO round trip lands (the sign-in page, or the Single sign-on section after a
// test), its address carries `?sso_error=<code>&error_id=<id>`: the page says the code's plain
// message and the id to quote. A code that is not one of ours says nothing.

type SearchParams = Record<string, string | string[] | undefined>;

export const single = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

/** The ids the server hands out (request ids): anything else in the address is not repeated on the page. */
const ERROR_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The refusal's message and id, or null when the address carries no refusal of ours. */
export function ssoRefusalOf(query: SearchParams): string | null {
  const code = single(query.sso_error);
  if (!code || !isSsoErrorCode(code)) return null;
  const errorId = single(query.error_id);
  return errorId && ERROR_ID.test(errorId) ? `${SSO_ERRORS[code]} Error id: ${errorId}` : SSO_ERRORS[code];
}
