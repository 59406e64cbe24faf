import "server-only";
import { NextResponse } from "next/server";
import { holds } from "@/server/auth/authorize";
import { readContext } from "@/server/db/context";
import { DomainError, notFound } from "@/server/errors";
import { problemResponse } from "@/server/rest/problem";
import { clientAddressOf, requestFactsOf, type RequestFacts } from "@/server/http/client";
import { publicOrigin } from "@/server/http/public-origin";
import { countAddressRequest } from "@/server/limits/api-limits";
import { log } from "@/server/log";
import { normalizeDomain } from "@/server/services/domains/service";
import type { ConnectionRow } from "@/server/services/sso/connections";
import { completeOidcSignIn, oidcSignIn } from "@/server/services/sso/oidc";
import { acceptSamlResponse, samlServiceProviderMetadata, samlSignIn } from "@/server/services/sso/saml";
import { MAX_SAML_BYTES } from "@/server/services/sso/saml-xml";
import {
  admitSsoUser,
  connectionById,
  connectionForDomain,
  errorIdOf,
  recordSsoSignIn,
  SSO_SIGN_IN,
  SsoRefusal,
  type AssertedIdentity,
} from "@/server/services/sso/sign-in";
import { currentSessionActor, signIn } from "./index";
import { issueSsoTicket, keepOidcFlow, keepSamlRequest, takeOidcFlow, takeSamlRequest } from "./sso";

// The browser's side of an SSO sign-in, behind the route files under src/app/api/sso: start (find
// the connection, send the browser to its IdP), the OIDC callback, the SAML ACS and the SP metadata.
// Every outcome is a redirect: to the IdP, to the console signed in, back to the sign-in page with a
// plain message and an id to quote, or — for an org admin's "Test connection" — to the SSO section
// with what the IdP said.

const SIGN_IN_PAGE = "/console/sign-in";
/** SSO sign-ins read and write as the platform: nobody is signed in yet. */
const ssoContext = () => readContext(SSO_SIGN_IN);
const LANDING = "/console";
/** Sign-in starts and returns per client address and minute. */
const SSO_LIMIT = { name: "sso", requests: 120, windowSeconds: 60 };

const redirectTo = (path: string) => NextResponse.redirect(new URL(path, publicOrigin()), 303);

const ssoSectionOf = (connection: Pick<ConnectionRow, "org_id">) =>
  `/console/organizations/${connection.org_id}/single-sign-on`;

/** Back to the sign-in page with the refusal's message and id; the details go to the audit trail. */
async function refused(
  refusal: SsoRefusal,
  request: RequestFacts,
  connection: ConnectionRow | null,
  test = false,
): Promise<NextResponse> {
  const errorId = errorIdOf(request);
  await recordSsoSignIn(ssoContext(), connection, null, { ...request, requestId: errorId }, refusal);
  log.info("SSO sign-in refused", { error_id: errorId, code: refusal.code, connection_id: connection?.id ?? null });
  const query = new URLSearchParams({ sso_error: refusal.code, error_id: errorId });
  return redirectTo(`${test && connection ? ssoSectionOf(connection) : SIGN_IN_PAGE}?${query}`);
}

/** Runs `work`, answering an SsoRefusal (or the per-address limit) as a refused sign-in. */
async function refusingPolitely(
  request: Request,
  work: (facts: RequestFacts, found: { connection: ConnectionRow | null; test: boolean }) => Promise<NextResponse>,
): Promise<NextResponse> {
  const facts = requestFactsOf(request);
  const found: { connection: ConnectionRow | null; test: boolean } = { connection: null, test: false };
  try {
    await countAddressRequest(SSO_LIMIT, clientAddressOf(request));
    return await work(facts, found);
  } catch (error) {
    if (error instanceof DomainError && error.code === "rate_limited")
      return refused(
        new SsoRefusal("rate_limited", "too many SSO requests from this address"),
        facts,
        found.connection,
      );
    if (error instanceof SsoRefusal) return refused(error, facts, found.connection, found.test);
    throw error;
  }
}

/** Signs the admitted person in (a console session recording the connection) and lands them in the console. */
async function signInThrough(connection: ConnectionRow, identity: AssertedIdentity, facts: RequestFacts) {
  const ctx = ssoContext();
  const userId = await admitSsoUser(ctx, connection, identity, facts);
  await signIn("sso", { ticket: issueSsoTicket(userId, connection.id), redirect: false, redirectTo: LANDING });
  await recordSsoSignIn(ctx, connection, userId, facts);
  return redirectTo(LANDING);
}

/** A "Test connection" round trip ends in the SSO section, showing whom the IdP vouched for. */
const testResult = (connection: ConnectionRow, identity: AssertedIdentity) =>
  redirectTo(
    `${ssoSectionOf(connection)}?${new URLSearchParams({
      tested: connection.id,
      email: identity.email ?? "",
      subject: identity.subject,
    })}`,
  );

/**
 * GET /api/sso/start?email=… (or ?domain=…): the connection covering the domain sends the browser
 * to its IdP. ?connection_id=…&test=1: an org admin's test of that connection (nobody is signed in).
 */
export function startSso(request: Request): Promise<NextResponse> {
  return refusingPolitely(request, async (_facts, found) => {
    const query = new URL(request.url).searchParams;
    let connection: ConnectionRow | null;
    const test = query.get("test") === "1";
    if (test) {
      connection = await connectionById(ssoContext(), query.get("connection_id") ?? "");
      const actor = await currentSessionActor();
      if (!connection || !actor || !holds(actor, "svc:org:sso:write", connection.org_id))
        return redirectTo(SIGN_IN_PAGE);
    } else {
      const given = query.get("email") ?? query.get("domain") ?? "";
      const domain = normalizeDomain(given.slice(given.lastIndexOf("@") + 1));
      connection = domain ? await connectionForDomain(ssoContext(), domain) : null;
      if (!connection) return redirectTo(`${SIGN_IN_PAGE}?${new URLSearchParams({ sso_error: "no_connection" })}`);
    }
    Object.assign(found, { connection, test });
    if (connection.type === "saml") {
      const { requestId, url } = await samlSignIn(ssoContext(), connection, test);
      await keepSamlRequest(requestId);
      return redirectTo(url);
    }
    const { flow, url } = await oidcSignIn(connection, test);
    await keepOidcFlow(flow);
    return redirectTo(url);
  });
}

/** GET /api/sso/{connection_id}/oidc/callback: the IdP's answer to a flow this browser started. */
export function oidcCallback(request: Request, connectionId: string): Promise<NextResponse> {
  return refusingPolitely(request, async (facts, found) => {
    const flow = await takeOidcFlow();
    const connection = await connectionById(ssoContext(), connectionId);
    found.connection = connection;
    if (!connection || connection.type !== "oidc")
      throw new SsoRefusal("connection_unavailable", "no enabled OIDC connection has this id");
    if (!flow || flow.connectionId !== connection.id)
      throw new SsoRefusal("invalid_response", "no sign-in through this connection was started in this browser");
    found.test = flow.test;
    const identity = await completeOidcSignIn(connection, flow, new URL(request.url));
    return flow.test ? testResult(connection, identity) : signInThrough(connection, identity, facts);
  });
}

/** POST /api/sso/{connection_id}/saml/acs: a SAMLResponse posted by the IdP (HTTP-POST binding). */
export function samlAcs(request: Request, connectionId: string): Promise<NextResponse> {
  return refusingPolitely(request, async (facts, found) => {
    const ctx = ssoContext();
    const connection = await connectionById(ctx, connectionId);
    found.connection = connection;
    if (!connection || connection.type !== "saml")
      throw new SsoRefusal("connection_unavailable", "no enabled SAML connection has this id");
    const length = Number(request.headers.get("content-length") ?? "0");
    // Base64 and form encoding make the posted form up to twice the XML's size.
    if (length > 2 * MAX_SAML_BYTES) throw new SsoRefusal("invalid_response", "the posted form is over 512 KiB");
    const form = await request.formData().catch(() => null);
    const samlResponse = form?.get("SAMLResponse");
    if (typeof samlResponse !== "string" || samlResponse.length === 0 || samlResponse.length > 2 * MAX_SAML_BYTES)
      throw new SsoRefusal("invalid_response", "no SAMLResponse in the posted form");
    const outcome = await acceptSamlResponse(ctx, connection, samlResponse, await takeSamlRequest());
    found.test = outcome.test;
    return outcome.test ? testResult(connection, outcome.identity) : signInThrough(connection, outcome.identity, facts);
  });
}

/** GET /api/sso/{connection_id}/saml/metadata: this app's SP metadata, for the IdP to read. */
export async function samlMetadata(connectionId: string): Promise<Response> {
  const ctx = ssoContext();
  const connection = await connectionById(ctx, connectionId);
  if (!connection || connection.type !== "saml") return problemResponse(notFound("SAML connection"));
  return new Response(samlServiceProviderMetadata(ctx, connection), {
    headers: { "Content-Type": "application/samlmetadata+xml", "Cache-Control": "no-store" },
  });
}
