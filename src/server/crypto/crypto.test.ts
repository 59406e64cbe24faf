import { describe, expect, it } from "vitest";
import { canonicalJson, configHash } from "./canonical-json";
import { legacyEncrypt } from "@/test/legacy-secret";
import { decrypt, encrypt, isCurrent, keyVersionOf, newKeySpec, parseKeyRing, SecretUnreadable } from "./secret-box";

describe("canonical JSON (RFC 8785)", () => {
  it("sorts members by UTF-16 code units at every depth and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    // RFC 8785 section 3.2.3's ordering example: code units, not code points or locale order.
    expect(canonicalJson({ "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4, "\u0080": 5, "\u00f6": 6 })).toBe(
      '{"\\r":2,"1":4,"\u0080":5,"\u00f6":6,"\u20ac":1,"\ud83d\ude00":3}',
    );
  });

  it("serializes numbers as ECMAScript does", () => {
    expect(canonicalJson([1e21, 1e-7, -0, 0.1, 333333333.3333333, 5e-324])).toBe(
      "[1e+21,1e-7,0,0.1,333333333.3333333,5e-324]",
    );
  });

  it("gives equal configs an equal hash, whatever their key order", () => {
    expect(configHash({ a: 1, b: { c: 2, d: 3 } })).toBe(configHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(configHash({ a: 1 })).not.toBe(configHash({ a: 2 }));
    expect(configHash({})).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("secret box", () => {
  const ring = parseKeyRing(newKeySpec("v1"));

  const here = "organization_llm_configs:0193a5c2-0000-7000-8000-000000000001";

  it("round-trips and never stores the plaintext", () => {
    const stored = encrypt(ring, "sk-live-abcdef123456", here);
    expect(stored).not.toContain("sk-live");
    expect(keyVersionOf(stored)).toBe("v1");
    expect(isCurrent(ring, stored)).toBe(true);
    expect(decrypt(ring, stored, here)).toBe("sk-live-abcdef123456");
    expect(encrypt(ring, "same", here)).not.toBe(encrypt(ring, "same", here));
  });

  it("fails loudly on a tampered value", () => {
    const stored = encrypt(ring, "secret", here);
    const parts = stored.split(":");
    const data = Buffer.from(parts[4] ?? "", "base64url");
    data[0] = (data[0] ?? 0) ^ 1;
    expect(() => decrypt(ring, [...parts.slice(0, 4), data.toString("base64url")].join(":"), here)).toThrow(
      SecretUnreadable,
    );
    expect(() => decrypt(ring, "plain text", here)).toThrow(SecretUnreadable);
  });

  it("does not decrypt a value moved to another place", () => {
    const stored = encrypt(ring, "secret", here);
    expect(() => decrypt(ring, stored, "organization_llm_configs:0193a5c2-0000-7000-8000-000000000002")).toThrow(
      SecretUnreadable,
    );
  });

  it("reads values written before binding, until they are re-encrypted", () => {
    const legacy = legacyEncrypt(ring, "legacy");
    expect(decrypt(ring, legacy, here)).toBe("legacy");
    expect(isCurrent(ring, legacy)).toBe(false);
  });

  it("reads old versions after a rotation and writes with the new one", () => {
    const old = encrypt(ring, "secret", here);
    const rotated = parseKeyRing(
      `${newKeySpec("v2")},${[...ring.keys].map(([v, k]) => `${v}:${k.toString("base64")}`).join(",")}`,
    );
    expect(decrypt(rotated, old, here)).toBe("secret");
    expect(isCurrent(rotated, old)).toBe(false);
    expect(keyVersionOf(encrypt(rotated, "secret", here))).toBe("v2");
    expect(() => decrypt(parseKeyRing(newKeySpec("v2")), old, here)).toThrow(/no key of version v1/);
  });

  it("refuses a malformed key ring", () => {
    expect(() => parseKeyRing("v1:short")).toThrow(/base64-of-32-bytes/);
    expect(() => parseKeyRing("")).toThrow(/empty/);
  });
});
