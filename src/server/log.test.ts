import { describe, expect, it } from "vitest";
import { redact } from "./log";

describe("log redaction", () => {
  it("masks anything shaped like an API key, wherever it is", () => {
    const key = "cdk_2bX9mQ7rT4vW8yZ1aC3eF5gH7jK9mN2pQ4sT6vX8zB0dF2hJ4lN6";
    expect(redact(`bad key ${key} seen`)).toBe("bad key cdk_[REDACTED] seen");
    expect(JSON.stringify(redact({ nested: [{ note: key }] }))).not.toContain(key.slice(4));
  });

  it("replaces values under secret names", () => {
    expect(
      redact({ password: "hunter2", headers: { "x-api-key": "abc", Authorization: "Bearer t" }, user: "ada" }),
    ).toEqual({
      password: "[REDACTED]",
      headers: { "x-api-key": "[REDACTED]", Authorization: "[REDACTED]" },
      user: "ada",
    });
  });

  it("keeps an error's name and message, redacted, and drops the rest", () => {
    const error = new Error("lookup of cdk_abcdefgh failed");
    expect(redact(error)).toEqual({ name: "Error", message: "lookup of cdk_[REDACTED] failed" });
  });
});
