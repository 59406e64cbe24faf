import { afterAll, describe, expect, it } from "vitest";
import { startSamlIdp } from "@/test/saml-idp";
import { certificateBody, readIdpMetadata, requireSha2Signatures, parseWithoutDtd, SamlXmlRefused } from "./saml-xml";

// Reading what an org admin pastes from their IdP: metadata as IdPs export it (alone, or wrapped
// in an EntitiesDescriptor as federation exports are), the signing certificates only, and nothing
// that carries a DTD.

const idp = await startSamlIdp();
afterAll(() => idp.stop());
const body = certificateBody(idp.certificatePem)!;

describe("IdP metadata", () => {
  it("gives the entity id, the HTTP-Redirect sign-on URL and the signing certificate", () => {
    expect(readIdpMetadata(idp.metadataXml)).toEqual({
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      certificates: [body],
    });
  });

  it("is read inside an EntitiesDescriptor, leaving out encryption-only keys", () => {
    const entity = idp.metadataXml.replace(/^<\?xml[^>]*>/, "");
    const withEncryptionKey = entity.replace('use="signing"', 'use="encryption"');
    const wrapped = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${entity}</md:EntitiesDescriptor>`;
    expect(readIdpMetadata(wrapped).entityId).toBe(idp.entityId);
    expect(() => readIdpMetadata(withEncryptionKey)).toThrow(/no signing certificate/);
  });

  it("is refused with a DTD, without an IdP, or without an HTTP-Redirect sign-on service", () => {
    const entity = idp.metadataXml.replace(/^<\?xml[^>]*>/, "");
    for (const [xml, reason] of [
      [`<!DOCTYPE m [<!ENTITY e SYSTEM "file:///etc/passwd">]>${entity}`, /document type declaration/],
      [entity.replace(/IDPSSODescriptor/g, "SPSSODescriptor"), /no identity provider/],
      [entity.replace(/bindings:HTTP-Redirect/g, "bindings:HTTP-POST"), /HTTP-Redirect/],
      ["<not-xml", /well-formed/],
    ] as const)
      expect(() => readIdpMetadata(xml), String(reason)).toThrow(reason);
  });
});

describe("certificates", () => {
  it("are taken as PEM or bare base64, and nothing else", () => {
    expect(certificateBody(body)).toBe(body);
    expect(certificateBody("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----")).toBeNull();
    expect(certificateBody(Buffer.from("hello").toString("base64"))).toBeNull();
  });
});

describe("signature algorithms", () => {
  it("refuse SHA-1 in a signature or a digest", () => {
    const signed = (method: string, digest: string) =>
      parseWithoutDtd(
        `<r xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignatureMethod Algorithm="${method}"/><ds:DigestMethod Algorithm="${digest}"/></r>`,
      );
    const sha256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
    const digest256 = "http://www.w3.org/2001/04/xmlenc#sha256";
    expect(() => requireSha2Signatures(signed(sha256, digest256))).not.toThrow();
    expect(() => requireSha2Signatures(signed("http://www.w3.org/2000/09/xmldsig#rsa-sha1", digest256))).toThrow(
      SamlXmlRefused,
    );
    expect(() => requireSha2Signatures(signed(sha256, "http://www.w3.org/2000/09/xmldsig#sha1"))).toThrow(
      SamlXmlRefused,
    );
  });
});
