// A settings schema whose check is exponential in the data, shared by the tests that show the check
// is stopped at its time budget and by the bench that measures what it costs (bench/hostile-input.ts).

/** Both branches of anyOf descend into the same recursive definition `n`: 2^depth paths to check. */
export const EXPONENTIAL_DEFS = {
  n: {
    anyOf: [
      { type: "array", items: { $ref: "#/$defs/n" } },
      { type: "array", items: { $ref: "#/$defs/n" } },
    ],
  },
};

/** Settings whose every value is checked against the exponential definition. */
export const EXPONENTIAL_SETTINGS = {
  $defs: EXPONENTIAL_DEFS,
  type: "object",
  additionalProperties: { $ref: "#/$defs/n" },
};

/** Arrays nested `depth` levels deep, a string at the bottom where the definition wants an array. */
export const nestedArrays = (depth: number): unknown =>
  Array.from({ length: depth }).reduce<unknown>((inner) => [inner], "leaf");
