import "server-only";
import { X509Certificate } from "node:crypto";
import { DOMParser, type Element } from "@xmldom/xmldom";

// What we read from SAML XML ourselves, before or beside the SAML library: an IdP's pasted metadata
// (its entity id, sign-on URL and signing certificates) and the checks the library leaves to us
// (no DTD, size, signature algorithms). Signatures themselves are verified by @node-saml/node-saml only.

const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";
const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

/** A SAML message larger than this is refused unread. */
export const MAX_SAML_BYTES = 256 * 1024;

export class SamlXmlRefused extends Error {}

/**
 * Parses XML that must carry no document type declaration: a DTD is how XXE and entity-expansion
 * ("billion laughs") payloads arrive, and no SAML message or metadata needs one.
 */
export function parseWithoutDtd(xml: string): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlXmlRefused("the XML carries a document type declaration");
  const errors: string[] = [];
  let doc: ReturnType<DOMParser["parseFromString"]> | undefined;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") errors.push(message);
      },
    }).parseFromString(xml, "text/xml");
  } catch {
    // A fatal error is thrown rather than reported.
  }
  if (!doc?.documentElement || errors.length > 0) throw new SamlXmlRefused("the XML is not well-formed");
  return doc as unknown as Document;
}

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

/** The base64 DER of a certificate given as PEM or bare base64, or null when it is not an X.509 certificate. */
export function certificateBody(value: string): string | null {
  const body = value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) return null;
  try {
    new X509Certificate(Buffer.from(body, "base64"));
    return body;
  } catch {
    return null;
  }
}

export const certificatePem = (body: string) =>
  `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;

/** What the console shows of a certificate: its fingerprint, subject and expiry. */
export function describeCertificate(body: string) {
  const certificate = new X509Certificate(Buffer.from(body, "base64"));
  return {
    fingerprint_sha256: certificate.fingerprint256,
    subject: certificate.subject.replace(/\n/g, ", "),
    not_after: new Date(certificate.validTo),
  };
}

const childrenNamed = (parent: Element, namespace: string, name: string): Element[] =>
  Array.from(parent.getElementsByTagNameNS(namespace, name));

/** The IdP's entity id, HTTP-Redirect sign-on URL and signing certificates, from its metadata XML. */
export function readIdpMetadata(xml: string): IdpMetadata {
  const doc = parseWithoutDtd(xml) as unknown as { documentElement: Element };
  const root = doc.documentElement;
  const entity =
    root.localName === "EntityDescriptor" ? root : childrenNamed(root, MD, "EntityDescriptor").find(Boolean);
  if (!entity || entity.namespaceURI !== MD) throw new SamlXmlRefused("no EntityDescriptor in the metadata");
  const idp = childrenNamed(entity, MD, "IDPSSODescriptor")[0];
  if (!idp) throw new SamlXmlRefused("the metadata describes no identity provider (IDPSSODescriptor)");
  const sso = childrenNamed(idp, MD, "SingleSignOnService").find((s) => s.getAttribute("Binding") === REDIRECT_BINDING);
  if (!sso?.getAttribute("Location")) throw new SamlXmlRefused("the metadata has no HTTP-Redirect SingleSignOnService");
  const certificates = childrenNamed(idp, MD, "KeyDescriptor")
    .filter((k) => (k.getAttribute("use") ?? "signing") === "signing")
    .flatMap((k) => childrenNamed(k, DS, "X509Certificate"))
    .map((c) => certificateBody(c.textContent ?? ""))
    .filter((c): c is string => c !== null);
  if (certificates.length === 0) throw new SamlXmlRefused("the metadata has no signing certificate");
  return {
    entityId: entity.getAttribute("entityID") ?? "",
    ssoUrl: sso.getAttribute("Location")!,
    certificates: [...new Set(certificates)].slice(0, 5),
  };
}

/**
 * Refuses a response signed (or digested) with SHA-1, which the SAML library would still accept:
 * every SignatureMethod and DigestMethod in the message must name a SHA-2 algorithm.
 */
export function requireSha2Signatures(doc: Document): void {
  const algorithms = ["SignatureMethod", "DigestMethod"].flatMap((name) =>
    Array.from(doc.getElementsByTagNameNS(DS, name)).map((e) => e.getAttribute("Algorithm") ?? ""),
  );
  if (algorithms.some((a) => /sha1$/i.test(a))) throw new SamlXmlRefused("the response is signed with SHA-1");
}
