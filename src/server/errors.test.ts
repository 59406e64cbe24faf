import { describe, expect, it } from "vitest";
import { DomainError } from "./errors";

const frames = (error: Error) => (error.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at "));

describe("DomainError", () => {
  it("carries no stack frames when it is an answer (4xx)", () => {
    for (const code of ["invalid_api_key", "not_found", "validation_failed", "rate_limited"] as const) {
      const error = new DomainError(code, "refused");
      expect(frames(error)).toEqual([]);
      expect(error.message).toBe("refused");
    }
  });

  it("keeps its stack when it is a fault (5xx), for the log", () => {
    expect(frames(new DomainError("internal_error", "broken")).length).toBeGreaterThan(0);
    expect(frames(new DomainError("unavailable", "down")).length).toBeGreaterThan(0);
  });

  it("leaves the process's stack trace limit as it found it", () => {
    const before = Error.stackTraceLimit;
    new DomainError("forbidden", "no");
    new DomainError("internal_error", "broken");
    expect(Error.stackTraceLimit).toBe(before);
    expect(frames(new Error("plain")).length).toBeGreaterThan(0);
  });
});
