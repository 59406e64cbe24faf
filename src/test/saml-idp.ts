import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as validator from "@authenio/samlify-node-xmllint";
import forge from "node-forge";
import samlify from "samlify";

// A SAML 2.0 identity provider for tests, built from samlify's IdP role: its own key and
// certificate made at start, metadata at /metadata, a login page at /sso (HTTP-Redirect binding)
// that asks for an email and posts a signed response to the request's ACS, and `respond()` for tests
// that post to the ACS themselves. The variants are an attacker's: unsigned, SHA-1, signature
// wrapping, another key, and hostile XML. The SP is not registered: the request names it.

samlify.setSchemaValidator(validator);

const POST = samlify.Constants.namespace.binding.post;
const REDIRECT = samlify.Constants.namespace.binding.redirect;
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const RSA_SHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1";

/** A signing key and its self-signed certificate, both PEM. */
function keyAndCertificate(commonName: string): { key: string; certificate: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = `01${randomBytes(8).toString("hex")}`;
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const subject = [{ name: "commonName", value: commonName }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return { key: forge.pki.privateKeyToPem(keys.privateKey), certificate: forge.pki.certificateToPem(certificate) };
}

type SamlVariant = "signed-assertion" | "signed-response" | "unsigned" | "sha1" | "wrapped" | "other-key";

export interface SamlResponseOptions {
  acsUrl: string;
  spEntityId: string;
  /** The AuthnRequest answered; none for an IdP-initiated response. */
  inResponseTo?: string;
  email: string;
  firstName?: string;
  lastName?: string;
  variant?: SamlVariant;
  /** For "wrapped": the address the forged assertion claims. */
  forgedEmail?: string;
  /** When the assertion stops being valid (default: in 5 minutes). */
  notOnOrAfter?: Date;
  /** The audience, when not the SP's entity id (a response meant for another SP). */
  audience?: string;
}

export interface LocalSamlIdp {
  entityId: string;
  baseUrl: string;
  ssoUrl: string;
  metadataXml: string;
  /** The signing certificate, PEM. */
  certificatePem: string;
  /** A signed SAMLResponse (base64) and its assertion's id. */
  respond(options: SamlResponseOptions): Promise<{ samlResponse: string; assertionId: string }>;
  /** The AuthnRequest a redirect to this IdP carries: its id, issuer and ACS. */
  readRequest(redirectUrl: string): Promise<{ id: string; issuer: string; acsUrl: string }>;
  stop(): Promise<void>;
}

const escapeHtml = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const base64 = (xml: string) => Buffer.from(xml, "utf8").toString("base64");

const ATTRIBUTE_STATEMENT = (attributes: Record<string, string>) =>
  `<saml:AttributeStatement>${Object.entries(attributes)
    .map(
      ([name, value]) =>
        `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${escapeHtml(value)}</saml:AttributeValue></saml:Attribute>`,
    )
    .join("")}</saml:AttributeStatement>`;

/** samlify's response template: its {tags} are filled by replaceTagsByValue. */
const TEMPLATE = samlify.SamlLib.defaultLoginResponseTemplate.context;

export async function startSamlIdp(options: { port?: number } = {}): Promise<LocalSamlIdp> {
  const server = http.createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${baseUrl}/metadata`;
  const ssoUrl = `${baseUrl}/sso`;
  const own = keyAndCertificate("Test SAML IdP");
  const stranger = keyAndCertificate("Not the test SAML IdP");

  const identityProvider = (key: { key: string; certificate: string }, algorithm = RSA_SHA256) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: key.key,
      signingCert: key.certificate,
      requestSignatureAlgorithm: algorithm,
      nameIDFormat: [EMAIL_FORMAT],
      singleSignOnService: [{ Binding: REDIRECT, Location: ssoUrl }],
      wantAuthnRequestsSigned: false,
    });
  const idp = identityProvider(own);
  const idps: Record<"own" | "stranger" | "sha1", ReturnType<typeof identityProvider>> = {
    own: idp,
    stranger: identityProvider(stranger),
    sha1: identityProvider(own, RSA_SHA1),
  };

  const serviceProvider = (entityID: string, acsUrl: string, signAssertion: boolean) =>
    samlify.ServiceProvider({
      entityID,
      assertionConsumerService: [{ Binding: POST, Location: acsUrl }],
      wantAssertionsSigned: signAssertion,
      wantMessageSigned: !signAssertion,
    });

  async function respond(o: SamlResponseOptions) {
    const variant = o.variant ?? "signed-assertion";
    const assertionId = `_a${randomUUID().replaceAll("-", "")}`;
    const now = new Date();
    const until = (o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
    const sp = serviceProvider(o.spEntityId, o.acsUrl, variant !== "signed-response");
    const signer = variant === "other-key" ? idps.stranger : variant === "sha1" ? idps.sha1 : idps.own;
    const values = (email: string, id: string) => ({
      ID: `_r${randomUUID().replaceAll("-", "")}`,
      AssertionID: id,
      Destination: o.acsUrl,
      Audience: o.audience ?? o.spEntityId,
      EntityID: o.spEntityId,
      SubjectRecipient: o.acsUrl,
      Issuer: entityId,
      IssueInstant: now.toISOString(),
      AssertionConsumerServiceURL: o.acsUrl,
      StatusCode: samlify.Constants.StatusCode.Success,
      ConditionsNotBefore: new Date(now.getTime() - 60_000).toISOString(),
      ConditionsNotOnOrAfter: until,
      SubjectConfirmationDataNotOnOrAfter: until,
      NameIDFormat: EMAIL_FORMAT,
      NameID: email,
      InResponseTo: o.inResponseTo ?? "",
      AuthnStatement: "",
    });
    // Tag values are escaped as text: the attribute statement, which is XML, goes in before them. An
    // IdP-initiated response answers no request: no InResponseTo at all, not an empty one.
    const fill = (template: string, email: string, id: string) =>
      samlify.SamlLib.replaceTagsByValue(
        (o.inResponseTo ? template : template.replace(/ InResponseTo="\{InResponseTo\}"/g, "")).replace(
          "{AttributeStatement}",
          ATTRIBUTE_STATEMENT({
            email,
            ...(o.firstName ? { firstName: o.firstName } : {}),
            ...(o.lastName ? { lastName: o.lastName } : {}),
          }),
        ),
        values(email, id),
      );
    const built = await signer.createLoginResponse(
      sp,
      { extract: { request: { id: o.inResponseTo ?? "" } } },
      "post",
      { email: o.email },
      {
        customTagReplacement: (template: string) => ({
          id: assertionId,
          context: fill(template, o.email, assertionId),
        }),
      },
    );
    let xml = Buffer.from((built as { context: string }).context, "base64").toString("utf8");
    if (variant === "unsigned") xml = xml.replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, "");
    if (variant === "wrapped") {
      // The signed assertion is moved into the forged one's Advice; the forged one stands where a
      // reader of "the assertion" looks, claiming another person, and carries no signature.
      const signed = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)![0];
      const forgedId = `_f${randomUUID().replaceAll("-", "")}`;
      const forged = fill(
        /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(TEMPLATE)![0],
        o.forgedEmail ?? "mallory@evil.test",
        forgedId,
      ).replace("</saml:Issuer>", `</saml:Issuer><saml:Advice>${signed}</saml:Advice>`);
      xml = xml.replace(signed, forged);
    }
    return { samlResponse: base64(xml), assertionId };
  }

  async function readRequest(redirectUrl: string) {
    const url = new URL(redirectUrl);
    const request = url.searchParams.get("SAMLRequest") ?? "";
    const xml = await new Promise<string>((resolve, reject) =>
      import("node:zlib").then((zlib) =>
        zlib.inflateRaw(Buffer.from(request, "base64"), (error, out) =>
          error ? reject(error) : resolve(out.toString()),
        ),
      ),
    );
    const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? "";
    const acsUrl = /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? "";
    const issuer = /<(?:saml2?:)?Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? "";
    return { id, issuer, acsUrl };
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const url = new URL(request.url ?? "/", baseUrl);
    const html = (body: string) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    if (url.pathname === "/metadata") {
      response.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(idp.getMetadata());
      return;
    }
    if (url.pathname === "/sso" && request.method === "GET") {
      html(
        `<!doctype html><title>Test IdP</title><form method="post" action="/sso/login"><input type="hidden" name="request" value="${escapeHtml(url.href)}"><label>Email <input name="email" type="email" required></label><button>Continue</button></form>`,
      );
      return;
    }
    if (url.pathname === "/sso/login" && request.method === "POST") {
      let body = "";
      for await (const chunk of request) body += chunk;
      const form = new URLSearchParams(body);
      const asked = await readRequest(form.get("request") ?? "");
      const { samlResponse } = await respond({
        acsUrl: asked.acsUrl,
        spEntityId: asked.issuer,
        inResponseTo: asked.id,
        email: form.get("email") ?? "",
      });
      html(
        `<!doctype html><title>Signing in</title><form method="post" action="${escapeHtml(asked.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"><button>Continue</button></form><script>document.forms[0].submit()</script>`,
      );
      return;
    }
    response.writeHead(404).end();
  }

  return {
    entityId,
    baseUrl,
    ssoUrl,
    metadataXml: idp.getMetadata(),
    certificatePem: own.certificate,
    respond,
    readRequest,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A response whose DOCTYPE declares an external entity reading a local file (XXE). */
export const xxeResponse = (acsUrl: string) =>
  base64(
    `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_x" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${acsUrl}"><saml:Assertion ID="_y" Version="2.0" IssueInstant="${new Date().toISOString()}"><saml:Subject><saml:NameID>&x;</saml:NameID></saml:Subject></saml:Assertion></samlp:Response>`,
  );

/** A response whose DOCTYPE nests entities to expand into gigabytes ("billion laughs"). */
export const billionLaughsResponse = (acsUrl: string) => {
  const entities = ['<!ENTITY l0 "lol">'];
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`);
  return base64(
    `<?xml version="1.0"?><!DOCTYPE r [${entities.join("")}]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_x" Version="2.0" Destination="${acsUrl}">&l9;</samlp:Response>`,
  );
};
