import { describe, it, expect } from "vitest";
import { MODEL_CATALOG } from "./model-catalog";

const PRICE = /^\d+(\.\d{1,8})?$/;

describe("MODEL_CATALOG", () => {
  it("has unique (provider, model_id) pairs", () => {
    const keys = MODEL_CATALOG.map((m) => `${m.provider}:${m.model_id}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("covers every provider", () => {
    const providers = new Set(MODEL_CATALOG.map((m) => m.provider));
    for (const p of ["openai", "anthropic", "google"]) expect(providers).toContain(p);
  });

  it("stores prices as decimal strings or null", () => {
    for (const m of MODEL_CATALOG) {
      for (const price of [m.input_price_per_unit, m.output_price_per_unit]) {
        if (price !== null) {
          expect(typeof price, m.model_id).toBe("string");
          expect(price, m.model_id).toMatch(PRICE);
        }
      }
    }
  });

  it("has no alias equal to any model_id", () => {
    const ids = new Set(MODEL_CATALOG.map((m) => m.model_id));
    for (const m of MODEL_CATALOG) {
      for (const alias of m.aliases) expect(ids.has(alias), `${m.model_id} alias ${alias}`).toBe(false);
    }
  });

  it("uses a 3-letter uppercase currency code", () => {
    for (const m of MODEL_CATALOG) expect(m.currency).toMatch(/^[A-Z]{3}$/);
  });
});
