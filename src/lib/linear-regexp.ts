import { RE2JS } from "re2js";

// Patterns from JSON Schemas (server and console): run on RE2 (re2js, pure JavaScript), whose
// matching time is linear in the input, so no pattern can backtrack for minutes.

export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/**
 * `pattern`, written as JSON Schema writes it (ECMAScript syntax), compiled for RE2. Throws on
 * what RE2 cannot run in linear time: lookaround and backreferences.
 */
export function linearRegExp(pattern: string): LinearRegExp {
  const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  return { test: (text) => compiled.test(text), toString: () => `/${pattern}/` };
}
