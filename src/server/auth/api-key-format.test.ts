import { describe, expect, it } from "vitest";
import { DISPLAY_PREFIX_LENGTH, generateKey, hashKey, isWellFormedKey, KEY_LENGTH } from "./api-key-format";

describe("API key format", () => {
  it("is cdk_, 43 base62 characters and a 6-character checksum", () => {
    const { raw, prefix, hash } = generateKey();
    expect(raw).toMatch(/^cdk_[0-9A-Za-z]{49}$/);
    expect(raw).toHaveLength(KEY_LENGTH);
    expect(prefix).toBe(raw.slice(0, DISPLAY_PREFIX_LENGTH));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashKey(raw));
    expect(isWellFormedKey(raw)).toBe(true);
  });

  it("accepts keys issued earlier: the checksum and the stored hash are stable", () => {
    // Issued by an earlier implementation of this module (BigInt base62, createHash).
    for (const raw of [
      "cdk_0I4qZOm0RG2Ck1lRvHHWy0THiEKgdPE17D9eexCWTUP3r59ls",
      "cdk_O0bzIRvyX4aBRevqX0Cng5jeo3CR1UR8zVmlVkpNu224ZBbSm",
    ]) {
      expect(isWellFormedKey(raw)).toBe(true);
    }
    expect(hashKey("cdk_lQxwEfGpPHd6wteOOEn5XLg5fmpKBJu7C78oBSIZvhN0oKNoI")).toBe(
      "3bfe3d8fbcb1e81ee44e6022de8b8984ff4bf53d6f204aed489753f1119f1598",
    );
  });

  it("never repeats", () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey().raw));
    expect(keys.size).toBe(2000);
  });

  it("refuses any single changed character through the checksum", () => {
    const { raw } = generateKey();
    for (let i = 4; i < raw.length; i++) {
      const replacement = raw[i] === "a" ? "b" : "a";
      expect(isWellFormedKey(raw.slice(0, i) + replacement + raw.slice(i + 1))).toBe(false);
    }
  });

  it("refuses values of the wrong shape", () => {
    const { raw } = generateKey();
    for (const value of [
      "",
      "cdk_",
      raw.slice(0, -1),
      `${raw}x`,
      raw.replace("cdk_", "cdx_"),
      `${raw.slice(0, -6)}!!!!!!`,
      ` ${raw.slice(1)}`,
    ]) {
      expect(isWellFormedKey(value)).toBe(false);
    }
  });
});
