import "server-only";
// Public reference list prices (USD per 1M tokens, standard tier), as published in November 2026; editable in the console.

export interface CatalogModel {
  provider: "openai" | "anthropic" | "google";
  model_id: string; // the identifier sent to the provider's API
  display_name: string;
  aliases: string[]; // alternative identifiers (e.g. dated snapshot ids or "-latest" aliases)
  model_category: "text_generation" | "embedding" | "image_generation" | "audio";
  input_billing_unit: "per_1m_tokens";
  output_billing_unit: "per_1m_tokens";
  input_price_per_unit: string | null;
  output_price_per_unit: string | null;
  currency: "USD";
}

type Entry = Pick<CatalogModel, "provider" | "model_id" | "display_name"> &
  Partial<Pick<CatalogModel, "aliases" | "model_category">> & {
    input: string | null;
    output: string | null;
  };

function entry(e: Entry): CatalogModel {
  return {
    provider: e.provider,
    model_id: e.model_id,
    display_name: e.display_name,
    aliases: e.aliases ?? [],
    model_category: e.model_category ?? "text_generation",
    input_billing_unit: "per_1m_tokens",
    output_billing_unit: "per_1m_tokens",
    input_price_per_unit: e.input,
    output_price_per_unit: e.output,
    currency: "USD",
  };
}

export const MODEL_CATALOG: readonly CatalogModel[] = [
  // OpenAI
  entry({ provider: "openai", model_id: "gpt-5.5", display_name: "GPT-5.5", input: "5", output: "30" }),
  entry({ provider: "openai", model_id: "gpt-5.4", display_name: "GPT-5.4", input: "2.5", output: "15" }),
  entry({
    provider: "openai",
    model_id: "gpt-5",
    display_name: "GPT-5",
    aliases: ["gpt-5-2025-08-07"],
    input: "1.25",
    output: "10",
  }),
  entry({
    provider: "openai",
    model_id: "gpt-5-mini",
    display_name: "GPT-5 mini",
    aliases: ["gpt-5-mini-2025-08-07"],
    input: "0.25",
    output: "2",
  }),
  entry({
    provider: "openai",
    model_id: "gpt-5-nano",
    display_name: "GPT-5 nano",
    aliases: ["gpt-5-nano-2025-08-07"],
    input: "0.05",
    output: "0.4",
  }),
  entry({
    provider: "openai",
    model_id: "gpt-4.1",
    display_name: "GPT-4.1",
    aliases: ["gpt-4.1-2025-04-14"],
    input: "2",
    output: "8",
  }),
  entry({
    provider: "openai",
    model_id: "text-embedding-3-small",
    display_name: "text-embedding-3-small",
    model_category: "embedding",
    input: "0.02",
    output: null,
  }),
  entry({
    provider: "openai",
    model_id: "text-embedding-3-large",
    display_name: "text-embedding-3-large",
    model_category: "embedding",
    input: "0.13",
    output: null,
  }),

  // Anthropic (no first-party embedding model; Anthropic points to Voyage AI)
  entry({
    provider: "anthropic",
    model_id: "claude-opus-5-5",
    display_name: "Claude Opus 5.5",
    input: "4",
    output: "20",
  }),
  entry({ provider: "anthropic", model_id: "claude-opus-5", display_name: "Claude Opus 5", input: "5", output: "25" }),
  entry({
    provider: "anthropic",
    model_id: "claude-sonnet-5",
    display_name: "Claude Sonnet 5",
    input: "2",
    output: "10",
  }),
  entry({
    provider: "anthropic",
    model_id: "claude-opus-4-6",
    display_name: "Claude Opus 4.6",
    input: "5",
    output: "25",
  }),
  entry({
    provider: "anthropic",
    model_id: "claude-sonnet-4-6",
    display_name: "Claude Sonnet 4.6",
    input: "3",
    output: "15",
  }),
  entry({
    provider: "anthropic",
    model_id: "claude-haiku-4-5",
    display_name: "Claude Haiku 4.5",
    aliases: ["claude-haiku-4-5-20251001"],
    input: "1",
    output: "5",
  }),

  // Google (Pro models: rates for prompts <= 200K tokens; longer prompts bill higher)
  entry({
    provider: "google",
    model_id: "gemini-3.1-pro-preview",
    display_name: "Gemini 3.1 Pro (Preview)",
    input: "2",
    output: "12",
  }),
  entry({
    provider: "google",
    model_id: "gemini-3-flash-preview",
    display_name: "Gemini 3 Flash (Preview)",
    input: "0.5",
    output: "3",
  }),
  entry({
    provider: "google",
    model_id: "gemini-3.1-flash-lite-preview",
    display_name: "Gemini 3.1 Flash-Lite (Preview)",
    input: "0.25",
    output: "1.5",
  }),
  entry({
    provider: "google",
    model_id: "gemini-2.5-pro",
    display_name: "Gemini 2.5 Pro",
    input: "1.25",
    output: "10",
  }),
  entry({
    provider: "google",
    model_id: "gemini-2.5-flash",
    display_name: "Gemini 2.5 Flash",
    input: "0.3",
    output: "2.5",
  }),
  entry({
    provider: "google",
    model_id: "gemini-2.5-flash-lite",
    display_name: "Gemini 2.5 Flash-Lite",
    input: "0.1",
    output: "0.4",
  }),
  entry({
    provider: "google",
    model_id: "gemini-embedding-001",
    display_name: "Gemini Embedding",
    model_category: "embedding",
    input: "0.15",
    output: null,
  }),
];
