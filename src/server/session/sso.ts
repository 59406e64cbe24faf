import "server-only";
import { randomBytes } from "node:crypto";
import { cookies } from "next/headers";
import { seal, unseal } from "@/server/auth/sealed";
import { processState } from "@/server/process-state";
import type { OidcFlow } from "@/server/services/sso/oidc";

// The session side of single sign-on. An OIDC flow's state and nonce wait in a signed, HttpOnly
// cookie between the redirect to the IdP and its callback (SameSite=Lax: the IdP's redirect back is
// a top-level GET, which carries it). When a callback has admitted a user, it hands Auth.js a
// ticket, good once and only inside this process for a few seconds, which the "sso" credentials
// provider (./config.ts) redeems for the session; the session then records the connection.

const FLOW_COOKIE = "__Host-svc.sso-flow";
const FLOW_PURPOSE = "sso-oidc-flow";
const FLOW_SECONDS = 600;

export async function keepOidcFlow(flow: OidcFlow): Promise<void> {
  (await cookies()).set(FLOW_COOKIE, seal(FLOW_PURPOSE, flow, FLOW_SECONDS), {
    httpOnly: true,
    secure: true,
    sameSite: "lax",
    path: "/",
    maxAge: FLOW_SECONDS,
  });
}

/** The flow the browser started, once: the cookie goes whatever the callback finds. */
export async function takeOidcFlow(): Promise<OidcFlow | null> {
  const jar = await cookies();
  const flow = unseal<OidcFlow>(FLOW_PURPOSE, jar.get(FLOW_COOKIE)?.value);
  jar.delete({ name: FLOW_COOKIE, path: "/", secure: true });
  return flow;
}

// A SAML request's id waits in the browser that made it, so that the ACS takes the answer to it
// from that browser only. The IdP posts to the ACS from its own site: only a SameSite=None cookie
// comes along.
const SAML_REQUEST_COOKIE = "__Host-svc.sso-saml-request";
const SAML_REQUEST_PURPOSE = "sso-saml-request";
const SAML_REQUEST_SECONDS = 300;

export async function keepSamlRequest(requestId: string): Promise<void> {
  (await cookies()).set(SAML_REQUEST_COOKIE, seal(SAML_REQUEST_PURPOSE, { requestId }, SAML_REQUEST_SECONDS), {
    httpOnly: true,
    secure: true,
    sameSite: "none",
    path: "/",
    maxAge: SAML_REQUEST_SECONDS,
  });
}

/** The id of the SAML request this browser made, once; null when none (or it expired). */
export async function takeSamlRequest(): Promise<string | null> {
  const jar = await cookies();
  const kept = unseal<{ requestId: string }>(SAML_REQUEST_PURPOSE, jar.get(SAML_REQUEST_COOKIE)?.value);
  jar.delete({ name: SAML_REQUEST_COOKIE, path: "/", secure: true, sameSite: "none" });
  return kept?.requestId ?? null;
}

export interface SsoTicket {
  userId: string;
  connectionId: string;
  expires: number;
}

const TICKET_MS = 10_000;
const tickets = () => processState("ssoTickets", () => new Map<string, SsoTicket>());

/** A ticket for the user the connection admitted, redeemed by the "sso" provider within this request. */
export function issueSsoTicket(userId: string, connectionId: string): string {
  const now = Date.now();
  for (const [key, ticket] of tickets()) if (ticket.expires < now) tickets().delete(key);
  const value = randomBytes(32).toString("base64url");
  tickets().set(value, { userId, connectionId, expires: now + TICKET_MS });
  return value;
}

/** The ticket's sign-in, once; null when unknown, used or expired. */
export function redeemSsoTicket(value: unknown): SsoTicket | null {
  if (typeof value !== "string") return null;
  const ticket = tickets().get(value);
  tickets().delete(value);
  return ticket && ticket.expires >= Date.now() ? ticket : null;
}
