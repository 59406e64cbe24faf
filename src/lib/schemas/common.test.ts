import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createApiKeyInput } from "./api-keys";
import { booleanQuery } from "./common";
import { createLlmConfigInput } from "./llm-configs";
import { createOrganizationInput } from "./organizations";
import { registerPluginInput } from "./plugins";
import { grantParams } from "./roles";
import { createUserInput, updateUserInput } from "./users";

// The words zod's failures are given, wherever they show (REST problem details, tRPC error data,
// the console's forms): each message follows the field's name in a sentence.

/** The first message for each path, as a form shows it next to its field. */
function messages(schema: z.ZodType, input: unknown): Record<string, string> {
  const found: Record<string, string> = {};
  for (const issue of schema.safeParse(input).error?.issues ?? []) found[issue.path.join(".")] ??= issue.message;
  return found;
}

describe("zod's messages", () => {
  it("say what a field must be, in words that follow its name", () => {
    expect(messages(createUserInput, { username: "ada", password: "short", email: "nope" })).toEqual({
      password: "must be at least 12 characters",
      email: "must be an email address",
    });
    expect(messages(createOrganizationInput, { name: "", website: "not a url", tier: "gold" })).toEqual({
      name: "is required",
      website: "must be a URL",
      tier: 'must be one of "free", "pro", "enterprise"',
    });
    expect(messages(createLlmConfigInput, { name: "x".repeat(256), provider: "openai", api_key: "k" })).toEqual({
      name: "must be at most 255 characters",
      api_key: "must be at least 8 characters",
    });
  });

  it("say a missing field is required and a field of the wrong type what it must be", () => {
    expect(messages(createLlmConfigInput, { provider: "openai", api_key: "sk-00000000", is_enabled: "yes" })).toEqual({
      name: "is required",
      is_enabled: "must be true or false",
    });
    expect(messages(booleanQuery, "maybe")).toEqual({ "": 'must be one of "true", "false"' });
  });

  it("say a value is too long or out of range where a field also has a message of its own", () => {
    const longUrl = `https://example.com/${"a".repeat(981)}`;
    expect(messages(updateUserInput, { avatar_url: longUrl })).toEqual({
      avatar_url: "must be at most 1000 characters",
    });
    expect(messages(updateUserInput, { avatar_url: "http://example.com/me.png" })).toEqual({
      avatar_url: "must be an https URL",
    });
    const user_id = "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70";
    expect(messages(grantParams, { user_id, grant_id: "2147483648" })).toEqual({
      grant_id: "must be at most 2147483647",
    });
    expect(messages(grantParams, { user_id, grant_id: "0" })).toEqual({ grant_id: "must be at least 1" });
    expect(messages(grantParams, { user_id, grant_id: "first" })).toEqual({ grant_id: "must be a grant id" });
  });

  it("say of a free key that its name is too long", () => {
    const key = "k".repeat(256);
    expect(
      messages(createLlmConfigInput, {
        name: "main",
        provider: "openai",
        api_key: "sk-00000000",
        additional_config: { [key]: 1 },
      }),
    ).toEqual({ [`additional_config.${key}`]: "its name must be at most 255 characters" });
  });

  it("name an unknown field, and leave a schema's own message as it is", () => {
    expect(messages(createApiKeyInput, { name: " ", scopes: [], surprise: 1 })).toEqual({
      name: "must not be empty",
      scopes: "must list at least one scope",
      "": "is not a known field",
    });
    expect(messages(registerPluginInput, { pid: "com.example.search", version: "", name: "Search" })).toEqual({
      version: "must not be empty",
    });
  });
});
