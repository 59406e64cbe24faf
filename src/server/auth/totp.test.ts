import { describe, expect, it } from "vitest";
import {
  looksLikeRecoveryCode,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpCode,
  totpUri,
} from "./totp";

// RFC 6238 appendix B, SHA-1: the ASCII secret "12345678901234567890", 8 digits.
const RFC_SECRET = new TextEncoder().encode("12345678901234567890");
const RFC_VECTORS: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("TOTP", () => {
  it.each(RFC_VECTORS)("gives the RFC 6238 code at T=%i", (time, code) => {
    expect(totpCode(RFC_SECRET, time, 8)).toBe(code);
  });

  const secret = newTotpSecret();
  const now = 1_800_000_015; // inside step 60_000_000
  const step = Math.floor(now / 30);
  const codeAt = (s: number) => totpCode(secret, s * 30 + 7);

  it("accepts the current step and one either side, answering the step matched", () => {
    expect(matchTotp(secret, codeAt(step), null, now)).toBe(step);
    expect(matchTotp(secret, codeAt(step - 1), null, now)).toBe(step - 1);
    expect(matchTotp(secret, codeAt(step + 1), null, now)).toBe(step + 1);
  });

  it("refuses two steps away either side", () => {
    expect(matchTotp(secret, codeAt(step - 2), null, now)).toBeNull();
    expect(matchTotp(secret, codeAt(step + 2), null, now)).toBeNull();
  });

  it("refuses a code of a step at or before the last one used (a replay)", () => {
    expect(matchTotp(secret, codeAt(step), step, now)).toBeNull();
    expect(matchTotp(secret, codeAt(step - 1), step - 1, now)).toBeNull();
    expect(matchTotp(secret, codeAt(step), step - 1, now)).toBe(step);
  });

  it("refuses what is not six digits, and another secret's code", () => {
    expect(matchTotp(secret, "12345", null, now)).toBeNull();
    expect(matchTotp(secret, `${codeAt(step)}0`, null, now)).toBeNull();
    expect(matchTotp(newTotpSecret(), codeAt(step), null, now)).toBeNull();
  });

  it("makes 160-bit base32 secrets and an otpauth URI naming the issuer and user", () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(totpUri(secret, "ada")).toBe(`otpauth://totp/svc:ada?secret=${secret}&issuer=svc`);
  });
});

describe("recovery codes", () => {
  it("are ten distinct 80-bit codes, compared regardless of case, spaces and dashes", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
      expect(looksLikeRecoveryCode(code)).toBe(true);
      expect(recoveryCodeHash(code.toUpperCase().replace(/-/g, " "))).toBe(recoveryCodeHash(code));
    }
    expect(looksLikeRecoveryCode("123456")).toBe(false);
  });
});
