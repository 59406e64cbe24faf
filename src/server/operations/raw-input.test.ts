import { describe, expect, it } from "vitest";
import { MAX_INPUT_DEPTH, rawInputProblems } from "./raw-input";

const nested = (depth: number, leaf: unknown = 1): unknown =>
  Array.from({ length: depth }).reduce<unknown>((inner) => [inner], leaf);

describe("raw input", () => {
  it("takes ordinary input", () => {
    expect(
      rawInputProblems({ name: "ok", n: 9007199254740991, x: -1.5e15, list: [{ a: null, b: true }], emoji: "😀" }, ""),
    ).toEqual([]);
  });

  it("refuses input nested deeper than 64 levels, naming the outermost field", () => {
    expect(rawInputProblems({ config: nested(MAX_INPUT_DEPTH - 1) }, "")).toEqual([]);
    expect(rawInputProblems({ config: nested(MAX_INPUT_DEPTH) }, "")).toEqual([
      { path: "config", message: "is nested deeper than 64 levels" },
    ]);
    expect(rawInputProblems({ config: { a: nested(20_000) } }, "")).toEqual([
      { path: "config", message: "is nested deeper than 64 levels" },
    ]);
    expect(rawInputProblems(nested(100), "")).toEqual([{ path: "0", message: "is nested deeper than 64 levels" }]);
  });

  it("refuses U+0000 and lone surrogates in values and field names, naming where", () => {
    expect(rawInputProblems({ pid: "\u0000" }, "query")).toEqual([
      { path: "query.pid", message: "must not contain U+0000" },
    ]);
    expect(rawInputProblems({ a: { b: ["ok", "x\ud800"] } }, "")).toEqual([
      { path: "a.b.1", message: "must not contain a lone UTF-16 surrogate" },
    ]);
    expect(rawInputProblems({ a: "\udc00y" }, "")).toEqual([
      { path: "a", message: "must not contain a lone UTF-16 surrogate" },
    ]);
    expect(rawInputProblems({ config: { "k\u0000": 1 } }, "")).toEqual([
      { path: "config", message: "has a field name containing U+0000" },
    ]);
    expect(rawInputProblems("\u0000", "")).toEqual([{ path: "body", message: "must not contain U+0000" }]);
  });

  it("refuses numbers beyond the range where JSON numbers are exact", () => {
    expect(rawInputProblems({ n: 9007199254740992 }, "")).toEqual([
      { path: "n", message: "is beyond ±9007199254740991 (send it as a string)" },
    ]);
    expect(rawInputProblems({ n: -1e20, m: [Infinity] }, "").map((p) => p.path)).toEqual(["n", "m.0"]);
    expect(rawInputProblems({ n: 0.5, m: 1e-300 }, "")).toEqual([]);
  });

  it("names at most 20 problems", () => {
    expect(
      rawInputProblems(
        Array.from({ length: 1000 }, () => "\u0000"),
        "",
      ),
    ).toHaveLength(20);
  });
});
