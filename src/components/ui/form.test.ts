import { describe, expect, it } from "vitest";
import { sentence } from "./form-errors";
import { jsonObjectOf, orNullEach, valuesFrom } from "./form-values";

describe("the form kit's words and values", () => {
  it("turns an error into a sentence that names its field", () => {
    expect(sentence("Password", "must be at least 12 characters")).toBe("Password must be at least 12 characters.");
    expect(sentence("Name", "is required")).toBe("Name is required.");
    // A server sentence stays as it is; a message below a field keeps naming where it is.
    expect(sentence("Model ID", "An enabled model with this provider and model_id exists.")).toBe(
      "An enabled model with this provider and model_id exists.",
    );
    expect(sentence("Settings schema: properties.top_k", "is not a valid JSON Schema", true)).toBe(
      "Settings schema: properties.top_k is not a valid JSON Schema.",
    );
    expect(sentence("Redirect URIs", "authorization_code needs at least one redirect URI")).toBe(
      "Redirect URIs: authorization_code needs at least one redirect URI.",
    );
  });

  it("reads a JSON object typed into a field, and says what is wrong with anything else", () => {
    const problems: string[] = [];
    const report = (message: string) => problems.push(message);
    expect(jsonObjectOf("", "Config", report)).toEqual({});
    expect(jsonObjectOf('{"temperature": 0.2}', "Config", report)).toEqual({ temperature: 0.2 });
    expect(problems).toEqual([]);
    expect(jsonObjectOf("[1, 2]", "Config", report)).toEqual({});
    expect(jsonObjectOf("{temperature: 0.2}", "Config", report)).toEqual({});
    expect(problems[0]).toBe('Config must be a JSON object, like {"temperature": 0.2}.');
    expect(problems[1]).toMatch(/^Config is not valid JSON: /);
  });

  it("starts an edit from the item's values (null as blank) and a new item from the blank ones", () => {
    const blank = { name: "", base_url: "", is_enabled: true };
    expect(valuesFrom(null, blank)).toBe(blank);
    expect(valuesFrom({ id: "x", name: "openai", base_url: null, is_enabled: false }, blank)).toEqual({
      name: "openai",
      base_url: "",
      is_enabled: false,
    });
    expect(orNullEach({ email: "  ", locale: " en " })).toEqual({ email: null, locale: "en" });
  });
});
