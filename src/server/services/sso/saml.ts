import "server-only";
import { randomBytes } from "node:crypto";
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from "@node-saml/node-saml";
import type { Context } from "@/server/db/context";
import { mapDatabaseError } from "@/server/db/errors";
import { serviceProviderOf, type ConnectionRow } from "./connections";
import { MAX_SAML_BYTES, certificatePem, parseWithoutDtd, requireSha2Signatures, SamlXmlRefused } from "./saml-xml";
import { SsoRefusal, type AssertedIdentity } from "./sign-in";

// SAML 2.0 through @node-saml/node-saml, which verifies signatures, audience, validity window and
// InResponseTo. Around it, what it leaves to us: the message's size and no DTD, no SHA-1, the
// Destination and Recipient naming our ACS, and each assertion accepted once (kept until it expires).

/** A request we sent is answered within this long, or not at all. */
const REQUEST_LIFETIME_MS = 5 * 60_000;
const CLOCK_SKEW_MS = 3 * 60_000;
/** The request id of a "Test connection" round trip starts with this: it shows the result, signs nobody in. */
const TEST_REQUEST_PREFIX = "_test_";

/**
 * The requests a connection sent, in the database (every app process answers any ACS post): saved
 * when sent, read to match InResponseTo, removed once answered.
 */
function requestIdStore({ db }: Context, connectionId: string): CacheProvider {
  return {
    async saveAsync(key, value) {
      const expiresAt = new Date(Date.now() + REQUEST_LIFETIME_MS);
      await db.ssoMessageId.deleteMany({ where: { expires_at: { lt: new Date() } } });
      await db.ssoMessageId.create({
        data: { kind: "request", value: key, connection_id: connectionId, expires_at: expiresAt },
      });
      return { value, createdAt: Date.now() };
    },
    async getAsync(key) {
      const row = await db.ssoMessageId.findFirst({
        where: { kind: "request", value: key, connection_id: connectionId, expires_at: { gt: new Date() } },
      });
      return row ? row.created_at.toISOString() : null;
    },
    async removeAsync(key) {
      if (key)
        await db.ssoMessageId.deleteMany({ where: { kind: "request", value: key, connection_id: connectionId } });
      return key;
    },
  };
}

function samlOf(ctx: Context, connection: ConnectionRow, requestId?: string): SAML {
  const sp = serviceProviderOf(connection.id);
  return new SAML({
    issuer: sp.spEntityId,
    audience: sp.spEntityId,
    callbackUrl: sp.acsUrl,
    entryPoint: connection.saml_idp_sso_url ?? undefined,
    idpIssuer: connection.saml_idp_entity_id ?? undefined,
    idpCert: connection.saml_idp_certificates.map(certificatePem),
    // Either the assertion or the whole response must carry a valid signature (the library refuses
    // a response with neither, and more than one assertion).
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    signatureAlgorithm: "sha256",
    digestAlgorithm: "sha256",
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: connection.saml_allow_idp_initiated
      ? ValidateInResponseTo.ifPresent
      : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS,
    cacheProvider: requestIdStore(ctx, connection.id),
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    generateUniqueId: () => requestId ?? `_${randomBytes(20).toString("hex")}`,
  });
}

/** Where to send the browser to sign in at the connection's IdP (HTTP-Redirect binding). */
/**
 * A new AuthnRequest of the connection: its id (kept in the browser that asked, see session/sso.ts)
 * and where to send the browser with it (HTTP-Redirect binding).
 */
export async function samlSignIn(
  ctx: Context,
  connection: ConnectionRow,
  test: boolean,
): Promise<{ requestId: string; url: string }> {
  const requestId = `${test ? TEST_REQUEST_PREFIX : "_"}${randomBytes(20).toString("hex")}`;
  return { requestId, url: await samlOf(ctx, connection, requestId).getAuthorizeUrlAsync("", undefined, {}) };
}

/** This app's metadata as the connection's service provider, for the IdP to read. */
export function samlServiceProviderMetadata(ctx: Context, connection: ConnectionRow): string {
  return samlOf(ctx, connection).generateServiceProviderMetadata(null, null);
}

const attribute = (profile: Profile, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = profile[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string" && first.trim() !== "") return first.trim();
  }
  return undefined;
};

/** Where Entra ID and AD FS name their claims by default. */
const CLAIMS = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims";

const EMAIL_ATTRIBUTES = ["email", "mail", `${CLAIMS}/emailaddress`, "urn:oid:0.9.2342.19200300.100.1.3"];

/** The one assertion's id and expiry, from the XML the library verified. */
function assertionFacts(verifiedAssertionXml: string): { id: string; notOnOrAfter: Date; recipients: string[] } {
  const doc = parseWithoutDtd(verifiedAssertionXml);
  const assertion = doc.documentElement;
  const ends = ["Conditions", "SubjectConfirmationData"]
    .flatMap((name) => Array.from(assertion.getElementsByTagNameNS("*", name)))
    .map((e) => e.getAttribute("NotOnOrAfter"))
    .filter((v): v is string => Boolean(v))
    .map((v) => new Date(v).getTime())
    .filter(Number.isFinite);
  const recipients = Array.from(assertion.getElementsByTagNameNS("*", "SubjectConfirmationData"))
    .map((e) => e.getAttribute("Recipient"))
    .filter((v): v is string => Boolean(v));
  return {
    id: assertion.getAttribute("ID") ?? "",
    notOnOrAfter: new Date(ends.length > 0 ? Math.max(...ends) + CLOCK_SKEW_MS : Date.now() + REQUEST_LIFETIME_MS),
    recipients,
  };
}

/** Refuses an assertion already accepted once; remembers this one until it expires. */
async function acceptOnce(ctx: Context, connectionId: string, assertionId: string, until: Date): Promise<void> {
  try {
    await ctx.db.ssoMessageId.create({
      data: { kind: "assertion", value: assertionId.slice(0, 255), connection_id: connectionId, expires_at: until },
    });
  } catch (error) {
    if (mapDatabaseError(error)?.code === "conflict")
      throw new SsoRefusal("invalid_response", "the assertion was already used (replay)");
    throw error;
  }
}

export interface SamlOutcome {
  identity: AssertedIdentity;
  /** A "Test connection" round trip: show what came back, sign nobody in. */
  test: boolean;
}

/**
 * Reads and checks a SAMLResponse posted to the connection's ACS; refuses with SsoRefusal. A
 * response to a request must answer the one this browser made (`askedHere`): a response obtained
 * by someone else, posted from a victim's browser, would sign the victim in as them.
 */
export async function acceptSamlResponse(
  ctx: Context,
  connection: ConnectionRow,
  samlResponse: string,
  askedHere: string | null,
): Promise<SamlOutcome> {
  const sp = serviceProviderOf(connection.id);
  const xml = Buffer.from(samlResponse, "base64");
  if (xml.length > MAX_SAML_BYTES) throw new SsoRefusal("invalid_response", "the response is over 256 KiB");
  let doc: Document;
  try {
    doc = parseWithoutDtd(xml.toString("utf8"));
    requireSha2Signatures(doc);
  } catch (error) {
    if (error instanceof SamlXmlRefused) throw new SsoRefusal("invalid_response", error.message);
    throw error;
  }
  const destination = doc.documentElement.getAttribute("Destination");
  if (destination && destination !== sp.acsUrl)
    throw new SsoRefusal("invalid_response", "the response's Destination is another service provider's");
  const inResponseTo = doc.documentElement.getAttribute("InResponseTo") ?? "";
  if (inResponseTo && inResponseTo !== askedHere)
    throw new SsoRefusal("invalid_response", "the response answers a request this browser did not make");
  let profile: Profile | null;
  try {
    ({ profile } = await samlOf(ctx, connection).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    throw new SsoRefusal("invalid_response", (error as Error).message.slice(0, 300));
  }
  if (!profile) throw new SsoRefusal("identity_provider_refused", "the identity provider signed nobody in");
  const assertionXml = profile.getAssertionXml?.();
  if (!assertionXml) throw new SsoRefusal("invalid_response", "the response carried no assertion");
  const facts = assertionFacts(assertionXml);
  if (facts.recipients.length === 0 || facts.recipients.some((r) => r !== sp.acsUrl))
    throw new SsoRefusal("invalid_response", "the assertion's Recipient is not this connection's ACS");
  await acceptOnce(ctx, connection.id, facts.id, facts.notOnOrAfter);
  const email = attribute(profile, ...EMAIL_ATTRIBUTES) ?? (profile.nameID?.includes("@") ? profile.nameID : undefined);
  const name = [
    attribute(profile, "firstName", "givenName", `${CLAIMS}/givenname`),
    attribute(profile, "lastName", "surname", `${CLAIMS}/surname`),
  ]
    .filter(Boolean)
    .join(" ");
  return {
    identity: {
      subject: profile.nameID ?? email ?? "",
      email,
      name: name || attribute(profile, "displayName"),
    },
    test: inResponseTo.startsWith(TEST_REQUEST_PREFIX),
  };
}
